package folio

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Project statuses.
const (
	ProjectPublished = "published"
	ProjectDraft     = "draft"
	ProjectArchived  = "archived"
)

// Project is a portfolio project (docs/api.md, "Projects").
type Project struct {
	ID              string         `json:"id"`
	Title           string         `json:"title"`
	Description     string         `json:"description"`
	LongDescription string         `json:"longDescription,omitempty"`
	Technologies    []string       `json:"technologies"`
	Status          string         `json:"status"`
	DemoURL         string         `json:"demoUrl,omitempty"`
	SourceURL       string         `json:"sourceUrl,omitempty"`
	Images          []ProjectImage `json:"images"`
	CreatedAt       time.Time      `json:"createdAt"`
	UpdatedAt       time.Time      `json:"updatedAt"`
}

// ProjectImage is an image shown with a project.
type ProjectImage struct {
	URL    string `json:"url"`
	Alt    string `json:"alt"`
	Type   string `json:"type"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
}

// ProjectListItem is the list form of a project: exactly these fields (docs/api.md, "Projects"),
// and the images only when the list is asked for them (include=images: the dashboard's
// thumbnails).
type ProjectListItem struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	Description  string         `json:"description"`
	Technologies []string       `json:"technologies"`
	Status       string         `json:"status"`
	CreatedAt    time.Time      `json:"createdAt"`
	UpdatedAt    time.Time      `json:"updatedAt"`
	Images       []ProjectImage `json:"images,omitempty" doc:"only with include=images"`
}

// ListItem returns the list form of p.
func (p *Project) ListItem() ProjectListItem {
	return ProjectListItem{ID: p.ID, Title: p.Title, Description: p.Description, Technologies: p.Technologies,
		Status: p.Status, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

// ProjectInput creates (POST) or replaces (PUT) a project. Pointer fields tell "absent" from
// "empty": on PUT, absent fields keep their value and present ones replace it.
type ProjectInput struct {
	Title           *string         `json:"title"`
	Description     *string         `json:"description"`
	LongDescription *string         `json:"longDescription"`
	Technologies    *[]string       `json:"technologies"`
	Status          *string         `json:"status"`
	DemoURL         *string         `json:"demoUrl"`
	SourceURL       *string         `json:"sourceUrl"`
	Images          *[]ProjectImage `json:"images"`
}

// Limits of project fields.
const (
	MaxProjectTitleLen           = 200
	MaxProjectDescriptionLen     = 2000
	MaxProjectLongDescriptionLen = 100_000
	MaxTechnologies              = 50
	MaxTechnologyLen             = 50
	MaxProjectImages             = 50
	MaxURLLen                    = 2048
	MaxImageAltLen               = 500
)

// Validate checks the input. Title and description are required on both create and replace; the
// rest is checked when present. A missing field is a 400, a broken rule a 422.
func (in *ProjectInput) Validate() error {
	var v Validation
	requiredText(&v, "title", in.Title, MaxProjectTitleLen)
	requiredText(&v, "description", in.Description, MaxProjectDescriptionLen)
	if in.LongDescription != nil && utf8.RuneCountInString(*in.LongDescription) > MaxProjectLongDescriptionLen {
		v.Invalid("longDescription", "must be at most %d characters", MaxProjectLongDescriptionLen)
	}
	if in.Technologies != nil {
		techs := *in.Technologies
		if len(techs) > MaxTechnologies {
			v.Invalid("technologies", "must list at most %d technologies", MaxTechnologies)
		}
		seen := map[string]bool{}
		for i, t := range techs {
			t = strings.TrimSpace(t)
			switch {
			case t == "":
				v.Invalid(indexed("technologies", i), "must not be empty")
			case utf8.RuneCountInString(t) > MaxTechnologyLen:
				v.Invalid(indexed("technologies", i), "must be at most %d characters", MaxTechnologyLen)
			case seen[strings.ToLower(t)]:
				v.Invalid(indexed("technologies", i), "is listed twice")
			}
			seen[strings.ToLower(t)] = true
		}
	}
	if in.Status != nil {
		switch *in.Status {
		case ProjectPublished, ProjectDraft, ProjectArchived:
		default:
			v.Invalid("status", "must be one of published, draft, archived")
		}
	}
	optionalURL(&v, "demoUrl", in.DemoURL)
	optionalURL(&v, "sourceUrl", in.SourceURL)
	if in.Images != nil {
		if len(*in.Images) > MaxProjectImages {
			v.Invalid("images", "must hold at most %d images", MaxProjectImages)
		}
		for i, img := range *in.Images {
			f := indexed("images", i)
			if strings.TrimSpace(img.URL) == "" {
				v.Missing(f + ".url")
			} else if !isHTTPURL(img.URL) && !strings.HasPrefix(img.URL, "/") {
				v.Invalid(f+".url", "must be an http(s) URL or a path on this site")
			} else if len(img.URL) > MaxURLLen {
				v.Invalid(f+".url", "must be at most %d characters", MaxURLLen)
			}
			if utf8.RuneCountInString(img.Alt) > MaxImageAltLen {
				v.Invalid(f+".alt", "must be at most %d characters", MaxImageAltLen)
			}
			switch img.Type {
			case "screenshot", "logo", "diagram":
			case "":
				v.Missing(f + ".type")
			default:
				v.Invalid(f+".type", "must be one of screenshot, logo, diagram")
			}
			if img.Width < 0 || img.Width > 100_000 {
				v.Invalid(f+".width", "must be between 1 and 100000")
			}
			if img.Height < 0 || img.Height > 100_000 {
				v.Invalid(f+".height", "must be between 1 and 100000")
			}
		}
	}
	return v.Err()
}

// Apply copies the present fields of in onto p, trimming text and normalising lists.
func (in *ProjectInput) Apply(p *Project) {
	if in.Title != nil {
		p.Title = strings.TrimSpace(*in.Title)
	}
	if in.Description != nil {
		p.Description = strings.TrimSpace(*in.Description)
	}
	if in.LongDescription != nil {
		p.LongDescription = *in.LongDescription
	}
	if in.Technologies != nil {
		p.Technologies = make([]string, 0, len(*in.Technologies))
		for _, t := range *in.Technologies {
			p.Technologies = append(p.Technologies, strings.TrimSpace(t))
		}
	}
	if in.Status != nil {
		p.Status = *in.Status
	}
	if in.DemoURL != nil {
		p.DemoURL = strings.TrimSpace(*in.DemoURL)
	}
	if in.SourceURL != nil {
		p.SourceURL = strings.TrimSpace(*in.SourceURL)
	}
	if in.Images != nil {
		p.Images = append([]ProjectImage{}, *in.Images...)
	}
	if p.Technologies == nil {
		p.Technologies = []string{}
	}
	if p.Images == nil {
		p.Images = []ProjectImage{}
	}
	if p.Status == "" {
		p.Status = ProjectDraft
	}
}

// ProjectFilter selects projects for a list.
type ProjectFilter struct {
	Statuses   []string // empty: every status
	Technology string   // case-insensitive exact technology
	Query      string   // case-insensitive substring of title or description
	Page       int
	Limit      int
}

func requiredText(v *Validation, field string, s *string, max int) {
	if s == nil || strings.TrimSpace(*s) == "" {
		v.Missing(field)
		return
	}
	if utf8.RuneCountInString(strings.TrimSpace(*s)) > max {
		v.Invalid(field, "must be at most %d characters", max)
	}
}

func optionalURL(v *Validation, field string, s *string) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return
	}
	if len(*s) > MaxURLLen {
		v.Invalid(field, "must be at most %d characters", MaxURLLen)
	} else if !isHTTPURL(strings.TrimSpace(*s)) {
		v.Invalid(field, "must be an http or https URL")
	}
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && !strings.ContainsAny(s, " \t\r\n")
}

func indexed(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}

// ProjectWrite is one write of a project as the content use case decided it; a store stores all
// of it in one transaction.
type ProjectWrite struct {
	Project *Project
	// Search is the project's entry in the search index.
	Search SearchDoc
	// Events are the webhook events the write emits.
	Events []Event
}

// SearchDoc is the search entry of p: found by everyone when published; the title weighs more
// than the description, technologies and long description (the store folds the text into index
// words).
func (p *Project) SearchDoc() SearchDoc {
	return SearchDoc{Kind: SearchTypeProject, ID: p.ID, Visible: p.Status == ProjectPublished,
		Title: p.Title, Body: strings.Join([]string{p.Description, strings.Join(p.Technologies, " "), p.LongDescription}, " ")}
}
