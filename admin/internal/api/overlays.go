package api

// overlayRoutes registers this resource's endpoints (being written).
func (s *Server) overlayRoutes() {}
