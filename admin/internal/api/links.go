package api

// linkRoutes registers this resource's endpoints (being written).
func (s *Server) linkRoutes() {}
