package api

// channelRoutes registers this resource's endpoints (being written).
func (s *Server) channelRoutes() {}
