package obs

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// The health endpoints both processes serve on their main listener.
// Deployment files probe them (deploy/); their test checks the paths.
const (
	// LivenessPath answers 200 while the process runs.
	LivenessPath = "/healthz"
	// ReadinessPath answers 200 when the process can serve: its stores
	// answer (and, on the edge, the link cache is warm); 503 otherwise.
	ReadinessPath = "/readyz"
)

// ProbeTimeout bounds one Probe.
const ProbeTimeout = 3 * time.Second

// Probe GETs url and succeeds on a 200 answer. It is the health check of
// the container images, which have no shell, curl or wget: `edge probe
// URL`, `admin probe URL`.
func Probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("probe %s: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("probe %s: %s: %s", url, resp.Status, body)
	}
	return nil
}
