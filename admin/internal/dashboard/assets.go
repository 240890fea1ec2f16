package dashboard

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
)

// assetFiles are the stylesheet, the script and the icon, embedded so the
// binary works offline and serves exactly what it was built with.
//
//go:embed assets
var assetFiles embed.FS

// assets are served under /assets/<version>/<name>, version being a hash
// of the content: a URL never changes meaning, so browsers may keep it for
// a year without asking, and a new build's pages name new URLs.
type assets struct {
	files map[string]asset
}

type asset struct {
	body    []byte
	ctype   string
	version string
}

func loadAssets() (*assets, error) {
	a := &assets{files: map[string]asset{}}
	entries, err := fs.ReadDir(assetFiles, "assets")
	if err != nil {
		return nil, fmt.Errorf("read assets: %w", err)
	}
	for _, e := range entries {
		b, err := assetFiles.ReadFile("assets/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("read asset %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(b)
		ctype := mime.TypeByExtension(path.Ext(e.Name()))
		if ctype == "" {
			return nil, fmt.Errorf("asset %s: unknown type", e.Name())
		}
		a.files[e.Name()] = asset{body: b, ctype: ctype, version: hex.EncodeToString(sum[:6])}
	}
	return a, nil
}

// url is the versioned URL of an asset; an unknown name is an error when
// the templates run (the tests render every page).
func (a *assets) url(name string) (string, error) {
	f, ok := a.files[name]
	if !ok {
		return "", fmt.Errorf("no asset %q", name)
	}
	return "/assets/" + f.version + "/" + name, nil
}

// serve answers GET /assets/{version}/{name}. Only the current version of
// a file exists: an old URL is a 404, never another file's bytes under a
// name cached as immutable.
func (a *assets) serve(w http.ResponseWriter, r *http.Request) {
	f, ok := a.files[r.PathValue("name")]
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if !ok || f.version != r.PathValue("version") {
		h.Set("Cache-Control", "no-store")
		http.NotFound(w, r)
		return
	}
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Content-Length", strconv.Itoa(len(f.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(f.body) //nolint:errcheck // the client went away
	}
}
