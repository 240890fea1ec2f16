package api

// domainRoutes registers this resource's endpoints (being written).
func (s *Server) domainRoutes() {}
