package archive

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/foliohq/folio"
)

// FrontMatter is a post's YAML header: every field of the post but its content.
type FrontMatter struct {
	ID                      string         `yaml:"id"`
	Slug                    string         `yaml:"slug"`
	Title                   string         `yaml:"title"`
	Excerpt                 string         `yaml:"excerpt"`
	Category                string         `yaml:"category"`
	Tags                    []string       `yaml:"tags"`
	Status                  string         `yaml:"status"`
	PublishedAt             *time.Time     `yaml:"publishedAt"`
	CreatedAt               time.Time      `yaml:"createdAt"`
	UpdatedAt               time.Time      `yaml:"updatedAt"`
	Author                  Author         `yaml:"author"`
	ExtblogID               string         `yaml:"extblogId"`
	Series                  string         `yaml:"series"`
	SEO                     *SEO           `yaml:"seo"`
	Settings                *Settings      `yaml:"settings"`
	ScheduledAt             *time.Time     `yaml:"scheduledAt"`
	CrossPlatformPublishing *CrossPlatform `yaml:"crossPlatformPublishing"`
	ArchivedAt              *time.Time     `yaml:"archivedAt"`
}

// Author is a post's author in the front matter.
type Author struct {
	ID    string `yaml:"id"`
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// SEO mirrors folio.PostSEO.
type SEO struct {
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	Image       string `yaml:"image"`
}

// Settings mirrors folio.PostSettings.
type Settings struct {
	EnableComments  bool `yaml:"enableComments"`
	EnableReactions bool `yaml:"enableReactions"`
	Newsletter      bool `yaml:"newsletter"`
}

// CrossPlatform mirrors folio.CrossPlatformPublishing.
type CrossPlatform struct {
	Extblog bool `yaml:"extblog"`
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}

func frontMatter(p *folio.Post) FrontMatter {
	fm := FrontMatter{ID: p.ID, Slug: p.Slug, Title: p.Title, Excerpt: p.Excerpt, Category: p.Category, Tags: p.Tags,
		Status: p.Status, PublishedAt: utc(p.PublishedAt), CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
		Author: Author{ID: p.Author.ID, Name: p.Author.Name, Email: p.Author.Email}, ExtblogID: p.ExtblogID,
		Series: p.Series, ScheduledAt: utc(p.ScheduledAt), ArchivedAt: utc(p.ArchivedAt)}
	if fm.Tags == nil {
		fm.Tags = []string{}
	}
	if p.SEO != nil {
		fm.SEO = &SEO{Title: p.SEO.Title, Description: p.SEO.Description, Image: p.SEO.Image}
	}
	if p.Settings != nil {
		fm.Settings = &Settings{EnableComments: p.Settings.EnableComments, EnableReactions: p.Settings.EnableReactions, Newsletter: p.Settings.Newsletter}
	}
	if p.CrossPlatformPublishing != nil {
		fm.CrossPlatformPublishing = &CrossPlatform{Extblog: p.CrossPlatformPublishing.Extblog}
	}
	return fm
}

func (fm FrontMatter) post(content string) *folio.Post {
	p := &folio.Post{Content: content}
	p.ID, p.Slug, p.Title, p.Excerpt, p.Category, p.Tags, p.Status = fm.ID, fm.Slug, fm.Title, fm.Excerpt, fm.Category, fm.Tags, fm.Status
	if p.Tags == nil {
		p.Tags = []string{}
	}
	p.PublishedAt, p.CreatedAt, p.UpdatedAt = utc(fm.PublishedAt), fm.CreatedAt.UTC(), fm.UpdatedAt.UTC()
	p.Author = folio.PostAuthor{ID: fm.Author.ID, Name: fm.Author.Name, Email: fm.Author.Email}
	p.ExtblogID, p.Series, p.ScheduledAt, p.ArchivedAt = fm.ExtblogID, fm.Series, utc(fm.ScheduledAt), utc(fm.ArchivedAt)
	if fm.SEO != nil {
		p.SEO = &folio.PostSEO{Title: fm.SEO.Title, Description: fm.SEO.Description, Image: fm.SEO.Image}
	}
	if fm.Settings != nil {
		p.Settings = &folio.PostSettings{EnableComments: fm.Settings.EnableComments, EnableReactions: fm.Settings.EnableReactions, Newsletter: fm.Settings.Newsletter}
	}
	if fm.CrossPlatformPublishing != nil {
		p.CrossPlatformPublishing = &folio.CrossPlatformPublishing{Extblog: fm.CrossPlatformPublishing.Extblog}
	}
	return p
}

// MarshalPost renders a post file: "---", the front matter, "---", the content as stored.
func MarshalPost(p *folio.Post) ([]byte, error) {
	y, err := yaml.Marshal(frontMatter(p))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(y)
	b.WriteString("---\n")
	b.WriteString(p.Content)
	return b.Bytes(), nil
}

// UnmarshalPost parses a post file made by MarshalPost.
func UnmarshalPost(data []byte) (*folio.Post, error) {
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		return nil, errors.New("no front matter (the file must start with ---)")
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return nil, errors.New("the front matter is not closed by ---")
	}
	var fm FrontMatter
	dec := yaml.NewDecoder(strings.NewReader(s[4 : 4+end+1]))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	return fm.post(s[4+end+5:]), nil
}
