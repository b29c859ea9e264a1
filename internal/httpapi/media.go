package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/media"
)

// uploadReadTimeout replaces the server's read deadline for upload bodies, which may be large.
const uploadReadTimeout = 10 * time.Minute

type mediaList struct {
	Media      []folio.MediaRecord `json:"media"`
	Pagination pagination          `json:"pagination"`
}

// pagination is the {page, limit, total, hasMore} object of paginated lists.
type pagination struct {
	Page    int  `json:"page"`
	Limit   int  `json:"limit"`
	Total   int  `json:"total"`
	HasMore bool `json:"hasMore"`
}

func newPagination(page, limit, total int) pagination {
	return pagination{Page: page, Limit: limit, Total: total, HasMore: page*limit < total}
}

type generateImageInput struct {
	Prompt *string `json:"prompt" doc:"1–4000 characters"`
	Size   string  `json:"size,omitempty" doc:"one of IMAGE_ALLOWED_SIZES (default the first)"`
}

// mediaAPI serves uploads, the media library and image generation.
type mediaAPI struct{ *Server }

func (s mediaAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/media/upload", Handle: s.uploadMedia, Level: folio.LevelWrite, Needs: needMediaStorage,
			Tag: "Media", Summary: "Upload a file (multipart part \"file\"); the type is sniffed from the bytes; images lose their metadata, are turned upright and get variants and a blurhash; over MEDIA_MAX_PIXELS is 422",
			BodyType: "multipart/form-data", Status: http.StatusCreated, Resp: folio.MediaObject{}, Errors: []int{413, 415, 422, 503}},
		{Method: "GET", Pattern: "/api/media", Handle: s.listMedia, Level: folio.LevelWrite,
			Tag: "Media", Summary: "List stored media, newest first (the dashboard's media library)",
			Query:  []param{pageParam, limitParam, {Name: "q", Type: "string", Doc: "only files whose name or generation prompt contains this text (any case)"}},
			Status: http.StatusOK, Resp: mediaList{}},
		{Method: "DELETE", Pattern: "/api/media/{key}", Handle: s.deleteMedia, Level: folio.LevelWrite, Needs: needMediaStorage,
			Tag: "Media", Summary: "Delete a stored file (`key` from the upload answer or the list) with its variants; 409 listing the posts and projects that show it (details: field post or project, id, title), unless force=true",
			Query:  []param{{Name: "force", Type: "boolean", Doc: "`true`: delete even while posts or projects show the file"}},
			Status: http.StatusNoContent, Errors: []int{404, 409, 503}},
		{Method: "POST", Pattern: "/api/ai/generate-image", Handle: s.generateImage, Level: folio.LevelWrite, Limit: limitHelperKey, Needs: needImageGeneration,
			Tag: "Media", Summary: "Generate an image from a prompt and store it in media storage",
			Body: generateImageInput{}, Status: http.StatusOK, Resp: folio.GeneratedImage{}, Errors: []int{413, 422, 502, 503}},
	}
}

func (s mediaAPI) uploadMedia(w http.ResponseWriter, r *http.Request) error {
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadReadTimeout))
	obj, err := s.Uploader.FromMultipart(r.Context(), r)
	if err != nil {
		return err
	}
	if err := s.MediaLibrary.RecordMedia(r.Context(), obj, "upload", "", folio.ActorFrom(r.Context()).UserID); err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, obj)
}

func (s mediaAPI) listMedia(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	items, total, err := s.MediaLibrary.Media(r.Context(), folio.MediaFilter{Query: r.URL.Query().Get("q"), Page: page, Limit: limit})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, mediaList{Media: items, Pagination: newPagination(page, limit, total)})
}

func (s mediaAPI) deleteMedia(w http.ResponseWriter, r *http.Request) error {
	force, err := boolQuery(r.URL.Query(), "force")
	if err != nil {
		return err
	}
	lib := media.Library{Store: s.MediaLibrary, Blobs: s.Uploader.Store}
	if err := lib.Delete(r.Context(), r.PathValue("key"), force); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s mediaAPI) generateImage(w http.ResponseWriter, r *http.Request) error {
	var in generateImageInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	prompt := ""
	if in.Prompt != nil {
		prompt = *in.Prompt
	}
	img, obj, err := s.ImageStudio.Generate(r.Context(), prompt, strings.TrimSpace(in.Size))
	if err != nil {
		return err
	}
	if err := s.MediaLibrary.RecordMedia(r.Context(), obj, "ai", prompt, folio.ActorFrom(r.Context()).UserID); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, img)
}
