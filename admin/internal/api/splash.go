package api

// splashRoutes registers this resource's endpoints (being written).
func (s *Server) splashRoutes() {}
