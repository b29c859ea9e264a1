package httpapi

import (
	"net/http"

	"github.com/foliohq/folio"
)

// exportAPI serves the whole-site archive.
type exportAPI struct{ *Server }

func (s exportAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/export", Handle: s.export, Level: folio.LevelAdmin,
			Tag: "Export", Summary: "Download every post (posts/<slug>.md, YAML front matter), project (projects.json), the profile (profile.json) " +
				"and the media files (media/, media.json) as one zip; `folio import FILE.zip` restores it into any database",
			Status: http.StatusOK, RespType: "application/zip"},
	}
}

// export streams the archive. It is written as it is read from the database and the storage,
// so a failure midway cannot change the status any more: it is logged and the zip is left
// truncated (unreadable), never silently incomplete.
func (s exportAPI) export(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="folio-export-`+s.now().UTC().Format("20060102T150405Z")+`.zip"`)
	w.Header().Set("Cache-Control", "no-store")
	if err := s.Archive.Export(r.Context(), s.MediaStore, w); err != nil {
		s.log(r).Error("export failed midway; the client got a truncated archive", "error", err.Error())
		panic(http.ErrAbortHandler) // aborts the response so the client sees a failed download
	}
	return nil
}
