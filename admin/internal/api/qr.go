package api

// qrRoutes registers this resource's endpoints (being written).
func (s *Server) qrRoutes() {}
