package api

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
)

// Parallel rotations with one key leave exactly one valid key: the one
// request that won answers it; every other request is told that a
// concurrent rotation won (or, arriving after it, that the key is gone),
// and no answered key is dead.
func TestRotateKeyConcurrent(t *testing.T) {
	e := newEnv(t)
	_, key := e.user("alice")
	type answer struct {
		status int
		body   map[string]any
		err    error
	}
	rotate := func(key string) answer {
		req, _ := http.NewRequest("POST", e.http.URL+"/api/account/key/rotate", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return answer{err: err}
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		a := answer{status: res.StatusCode}
		a.err = json.Unmarshal(raw, &a.body)
		return a
	}
	conflicts := 0
	for round := range 6 {
		const n = 8
		answers := make([]answer, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				answers[i] = rotate(key)
			}()
		}
		close(start)
		wg.Wait()
		var issued []string
		for _, a := range answers {
			if a.err != nil {
				t.Fatal(a.err)
			}
			msg, _ := a.body["message"].(string)
			switch a.status {
			case http.StatusOK:
				issued = append(issued, a.body["api_key"].(string))
			case http.StatusConflict:
				conflicts++
				if msg != "the API key was rotated by a concurrent request; use the key that request returned" {
					t.Errorf("409 message %q", msg)
				}
			case http.StatusUnauthorized: // came after the winner had committed
				if msg != "invalid API key" {
					t.Errorf("401 message %q", msg)
				}
			default:
				t.Fatalf("round %d: status %d %v", round, a.status, a.body)
			}
		}
		if len(issued) != 1 {
			t.Fatalf("round %d: %d rotations answered a key; only one can stay valid", round, len(issued))
		}
		e.do("GET", "/api/account", issued[0], nil).wantStatus(t, http.StatusOK)
		e.do("GET", "/api/account", key, nil).wantStatus(t, http.StatusUnauthorized)
		key = issued[0]
	}
	t.Logf("%d requests lost the race after passing the key check", conflicts)
}
