package extblog_test

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/foliohq/folio/internal/extblog"
)

func loadSchema(t *testing.T) *ast.Schema {
	t.Helper()
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: extblog.SchemaSDL})
	if err != nil {
		t.Fatalf("schema.graphql does not load: %v", err)
	}
	return s
}

// Every document the client can send must validate against the platform's schema, and be named
// as the client names it in operationName.
func TestDocumentsValidateAgainstSchema(t *testing.T) {
	t.Parallel()
	schema := loadSchema(t)
	if len(extblog.Documents()) != 7 {
		t.Errorf("got %d documents, want 7 (one per operation)", len(extblog.Documents()))
	}
	for name, doc := range extblog.Documents() {
		t.Run(name, func(t *testing.T) {
			q, errs := gqlparser.LoadQueryWithRules(schema, doc, nil)
			if len(errs) > 0 {
				t.Fatalf("document does not validate: %v", errs)
			}
			if len(q.Operations) != 1 || q.Operations[0].Name != name {
				t.Fatalf("document must hold exactly one operation named %s", name)
			}
		})
	}
}

// The validation is real: the mistakes a hand-written document can make are caught.
func TestSchemaRejectsWrongDocuments(t *testing.T) {
	t.Parallel()
	schema := loadSchema(t)
	for name, doc := range map[string]string{
		"misspelt field":    `query { post(id: "1") { titel } }`,
		"unknown argument":  `query { publication(domain: "x") { id } }`,
		"wrong input type":  `mutation ($i: PublishPostInput!) { removePost(input: $i) { post { id } } }`,
		"missing selection": `query { post(id: "1") { content } }`,
		"missing argument":  `query { publication(host: "x") { posts { totalDocuments } } }`,
	} {
		if _, errs := gqlparser.LoadQueryWithRules(schema, doc, nil); len(errs) == 0 {
			t.Errorf("%s: %q validated, want an error", name, doc)
		}
	}
}

func TestSchemaMirrorsPlatformInputs(t *testing.T) {
	t.Parallel()
	schema := loadSchema(t)
	want := map[string][]string{
		"PublishPostInput": {"title", "subtitle", "publicationId", "contentMarkdown", "slug", "tags",
			"seriesId", "metaTags", "settings", "disableComments", "publishedAt", "originalArticleURL",
			"coverImageOptions"},
		"UpdatePostInput":          {"id", "title", "contentMarkdown", "tags", "settings", "metaTags"},
		"PublishPostSettingsInput": {"isNewsletterActivated", "enableTableOfContent", "delisted"},
		"UpdatePostSettingsInput":  {"disableComments", "isTableOfContentEnabled", "delisted"},
		"PublishPostTagInput":      {"id", "name", "slug"},
		"MetaTagsInput":            {"title", "description", "image"},
		"RemovePostInput":          {"id"},
		"RestorePostInput":         {"id"},
	}
	for typ, fields := range want {
		def := schema.Types[typ]
		if def == nil {
			t.Errorf("type %s missing", typ)
			continue
		}
		for _, f := range fields {
			if def.Fields.ForName(f) == nil {
				t.Errorf("%s.%s missing", typ, f)
			}
		}
	}
	if !strings.Contains(extblog.SchemaSDL, "restorePost(input: RestorePostInput!)") {
		t.Error("Mutation.restorePost missing")
	}
}
