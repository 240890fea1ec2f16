package api

// pixelRoutes registers this resource's endpoints (being written).
func (s *Server) pixelRoutes() {}
