package api

// campaignRoutes registers this resource's endpoints (being written).
func (s *Server) campaignRoutes() {}
