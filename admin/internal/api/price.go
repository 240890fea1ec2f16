package api

// priceRoutes registers this resource's endpoints (being written).
func (s *Server) priceRoutes() {}
