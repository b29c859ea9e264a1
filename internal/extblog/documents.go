package extblog

import (
	_ "embed"
	"time"
)

// SchemaSDL is the platform's schema for the fields folio uses (schema.graphql). The client's
// documents are validated against it in tests and the fake server validates requests with it.
//
//go:embed schema.graphql
var SchemaSDL string

// Operation names; the client sends them as operationName and the fake answers by them.
const (
	OpListPosts      = "ListPosts"
	OpGetPost        = "GetPost"
	OpFindPostBySlug = "FindPostBySlug"
	OpPublishPost    = "PublishPost"
	OpUpdatePost     = "UpdatePost"
	OpRemovePost     = "RemovePost"
	OpRestorePost    = "RestorePost"
)

// Documents returns, by operation name, every document the client can send. Tests validate
// each against SchemaSDL.
func Documents() map[string]string {
	return map[string]string{
		OpListPosts:      listPostsDoc,
		OpGetPost:        getPostDoc,
		OpFindPostBySlug: findPostBySlugDoc,
		OpPublishPost:    publishPostDoc,
		OpUpdatePost:     updatePostDoc,
		OpRemovePost:     removePostDoc,
		OpRestorePost:    restorePostDoc,
	}
}

func document(op string) string { return Documents()[op] }

// The publication is chosen by host when one is configured and by id otherwise; the platform
// accepts either and ignores a null.
const listPostsDoc = `query ListPosts($host: String, $id: ObjectId, $first: Int!, $after: String) {
  publication(host: $host, id: $id) {
    id
    posts(first: $first, after: $after) {
      totalDocuments
      edges { node { id title slug brief url publishedAt } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`

const postFieldsFragment = `fragment PostFields on Post {
  id
  title
  subtitle
  slug
  brief
  url
  canonicalUrl
  publishedAt
  updatedAt
  content { markdown }
  tags { id name slug }
  series { id }
  seo { title description }
  ogMetaData { image }
  coverImage { url }
  preferences { disableComments }
}`

const getPostDoc = `query GetPost($id: ID!) {
  post(id: $id) { ...PostFields }
}
` + postFieldsFragment

// findPostBySlugDoc lets Publish find out whether an attempt whose reply was lost did create
// the post, so a retry never makes a second one.
const findPostBySlugDoc = `query FindPostBySlug($id: ObjectId!, $slug: String!) {
  publication(id: $id) {
    id
    post(slug: $slug) { id title slug url publishedAt }
  }
}`

const publishPostDoc = `mutation PublishPost($input: PublishPostInput!) {
  publishPost(input: $input) {
    post { id title slug url publishedAt }
  }
}`

const updatePostDoc = `mutation UpdatePost($input: UpdatePostInput!) {
  updatePost(input: $input) {
    post { id title slug url publishedAt }
  }
}`

const removePostDoc = `mutation RemovePost($input: RemovePostInput!) {
  removePost(input: $input) { post { id } }
}`

const restorePostDoc = `mutation RestorePost($input: RestorePostInput!) {
  restorePost(input: $input) { post { id } }
}`

// Wire types of the inputs. Optional fields are omitted when empty so the platform keeps its
// own defaults; the JSON names are the schema's input field names.

type tagInput struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

type metaTagsInput struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Image       string `json:"image,omitempty"`
}

type coverImageOptionsInput struct {
	CoverImageURL string `json:"coverImageURL,omitempty"`
}

type publishPostSettingsInput struct {
	IsNewsletterActivated bool `json:"isNewsletterActivated"`
}

type publishPostInput struct {
	PublicationID      string                    `json:"publicationId"`
	Title              string                    `json:"title"`
	Subtitle           string                    `json:"subtitle,omitempty"`
	Slug               string                    `json:"slug,omitempty"`
	ContentMarkdown    string                    `json:"contentMarkdown"`
	Tags               []tagInput                `json:"tags"`
	SeriesID           string                    `json:"seriesId,omitempty"`
	MetaTags           *metaTagsInput            `json:"metaTags,omitempty"`
	CoverImageOptions  *coverImageOptionsInput   `json:"coverImageOptions,omitempty"`
	OriginalArticleURL string                    `json:"originalArticleURL,omitempty"`
	DisableComments    bool                      `json:"disableComments"`
	PublishedAt        string                    `json:"publishedAt,omitempty"`
	Settings           *publishPostSettingsInput `json:"settings,omitempty"`
}

type updatePostSettingsInput struct {
	DisableComments bool `json:"disableComments"`
}

type updatePostInput struct {
	ID                 string                   `json:"id"`
	Title              string                   `json:"title,omitempty"`
	Subtitle           string                   `json:"subtitle,omitempty"`
	Slug               string                   `json:"slug,omitempty"`
	ContentMarkdown    string                   `json:"contentMarkdown,omitempty"`
	Tags               []tagInput               `json:"tags"`
	SeriesID           string                   `json:"seriesId,omitempty"`
	MetaTags           *metaTagsInput           `json:"metaTags,omitempty"`
	CoverImageOptions  *coverImageOptionsInput  `json:"coverImageOptions,omitempty"`
	OriginalArticleURL string                   `json:"originalArticleURL,omitempty"`
	PublishedAt        string                   `json:"publishedAt,omitempty"`
	Settings           *updatePostSettingsInput `json:"settings,omitempty"`
}

type idInput struct {
	ID string `json:"id"`
}

// Wire types of the replies.

type postSummary struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	Slug        string    `json:"slug"`
	Brief       string    `json:"brief"`
	URL         string    `json:"url"`
	PublishedAt time.Time `json:"publishedAt"`
}

type listPostsData struct {
	Publication *struct {
		ID    string `json:"id"`
		Posts struct {
			TotalDocuments int `json:"totalDocuments"`
			Edges          []struct {
				Node postSummary `json:"node"`
			} `json:"edges"`
			PageInfo struct {
				HasNextPage *bool   `json:"hasNextPage"`
				EndCursor   *string `json:"endCursor"`
			} `json:"pageInfo"`
		} `json:"posts"`
	} `json:"publication"`
}

type fullPost struct {
	postSummary
	Subtitle     *string    `json:"subtitle"`
	CanonicalURL *string    `json:"canonicalUrl"`
	UpdatedAt    *time.Time `json:"updatedAt"`
	Content      struct {
		Markdown string `json:"markdown"`
	} `json:"content"`
	Tags []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Slug string `json:"slug"`
	} `json:"tags"`
	Series *struct {
		ID string `json:"id"`
	} `json:"series"`
	SEO *struct {
		Title       *string `json:"title"`
		Description *string `json:"description"`
	} `json:"seo"`
	OGMetaData *struct {
		Image *string `json:"image"`
	} `json:"ogMetaData"`
	CoverImage *struct {
		URL string `json:"url"`
	} `json:"coverImage"`
	Preferences struct {
		DisableComments bool `json:"disableComments"`
	} `json:"preferences"`
}

type getPostData struct {
	Post *fullPost `json:"post"`
}

type findPostBySlugData struct {
	Publication *struct {
		ID   string       `json:"id"`
		Post *postSummary `json:"post"`
	} `json:"publication"`
}

type mutationPostData struct {
	Post *struct {
		ID          string    `json:"id"`
		Title       string    `json:"title"`
		Slug        string    `json:"slug"`
		URL         string    `json:"url"`
		PublishedAt time.Time `json:"publishedAt"`
	} `json:"post"`
}

type publishPostData struct {
	PublishPost mutationPostData `json:"publishPost"`
}

type updatePostData struct {
	UpdatePost mutationPostData `json:"updatePost"`
}

type removePostData struct {
	RemovePost struct {
		Post *idInput `json:"post"`
	} `json:"removePost"`
}

type restorePostData struct {
	RestorePost struct {
		Post *idInput `json:"post"`
	} `json:"restorePost"`
}
