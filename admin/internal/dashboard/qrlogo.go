package dashboard

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"

	"kurz/shared/qrcode"
)

// A QR code's logo comes from a URL (fetched once by the API) or from a
// file picked on the form: the file is handed to the API as the data: URI
// POST /api/qr/add also takes, so both go through the same checks
// (qrcode.ParseDataURI, PrepareLogo) and the same errors.

// logoFromForm sets in's logo from the posted file logo_file when one
// was picked, and reports whether it did; the form's logo errors then
// belong to the file field. A file that cannot be one is refused on f.
func logoFromForm(r *http.Request, f *form, logo **string) bool {
	file, _, err := r.FormFile("logo_file")
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) {
		return false
	}
	if err != nil {
		f.fail("logo_file", "the file could not be read", http.StatusBadRequest)
		return true
	}
	defer file.Close()
	if strings.TrimSpace(f.Val("logo")) != "" {
		f.fail("logo_file", "give a logo URL or a file, not both", http.StatusBadRequest)
		return true
	}
	b, err := io.ReadAll(io.LimitReader(file, qrcode.MaxLogoBytes+1))
	switch {
	case err != nil:
		f.fail("logo_file", "the file could not be read", http.StatusBadRequest)
	case len(b) == 0:
		f.fail("logo_file", "the file is empty", http.StatusBadRequest)
	case len(b) > qrcode.MaxLogoBytes:
		f.fail("logo_file", "too large: at most 1 MiB", http.StatusBadRequest)
	}
	if f.Failed() {
		return true
	}
	// The declared type is the browser's guess from the name; the bytes
	// decide, and the API checks them again.
	mime := http.DetectContentType(b)
	if mime != "image/png" && mime != "image/jpeg" {
		f.fail("logo_file", "not a PNG or JPEG image", http.StatusBadRequest)
		return true
	}
	uri := "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
	*logo = &uri
	return true
}

// fileLost asks for a picked file again when the form carrying it was
// refused for another reason: browsers never fill a file field, so the
// page showing the refused form has lost it.
func fileLost(f *form, fromFile bool) {
	if fromFile && f.Failed() && f.Err("logo_file") == "" {
		f.Errors["logo_file"] = pickAgain
	}
}

// pickAgain asks for a file the page sent back no longer holds.
const pickAgain = "Pick the file again: a form sent back cannot keep it."

// filePicked reports whether the posted form carries a logo file (the
// browser's part for "no file chosen" has no file name, which Go reads as
// no file).
func filePicked(r *http.Request) bool {
	file, _, err := r.FormFile("logo_file")
	if err != nil {
		return false
	}
	file.Close()
	return true
}

// previewLosesFile tells the user that the preview button sent the page
// back without the picked file.
func previewLosesFile(r *http.Request, f *form) {
	if filePicked(r) {
		f.Errors["logo_file"] = pickAgain
	}
}

// logoFieldMap is fieldMap with the API's logo errors on the file field.
func logoFieldMap(fieldMap map[string]string, fromFile bool) map[string]string {
	if fromFile {
		fieldMap["logo"] = "logo_file"
	}
	return fieldMap
}
