package config

import "time"

// How long each process takes at most to stop after SIGINT or SIGTERM.
// The processes bound their shutdown phases with these; deployment files
// must wait at least as long before they kill (systemd's TimeoutStopSec,
// compose's stop_grace_period, Kubernetes' terminationGracePeriodSeconds;
// checked by deploy/deploy_test.go).
const (
	// EdgeHTTPShutdown bounds the edge's wait for requests in flight.
	EdgeHTTPShutdown = 10 * time.Second
	// EdgeClickDrain bounds the edge's final flush of queued clicks to
	// ClickHouse (or the spool). Clicks still queued after it are lost.
	EdgeClickDrain = 30 * time.Second
	// EdgeStopTimeout is the edge's whole stop: requests, then clicks.
	EdgeStopTimeout = EdgeHTTPShutdown + EdgeClickDrain
	// AdminStopTimeout bounds the admin's wait for requests in flight.
	AdminStopTimeout = 20 * time.Second
)
