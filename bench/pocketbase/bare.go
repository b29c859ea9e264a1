package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // the SQLite driver folio uses

	"github.com/foliohq/folio"
)

// The bare handlers are the floor folio is measured against: plain net/http, the same database
// driver and pragmas as folio, and nothing else — no authentication, rate limit, request id,
// metrics, validation beyond a required title, or cache.

// bareProject is what the bare handlers read and write.
type bareProject struct {
	ID           string    `json:"id"`
	Title        string    `json:"title"`
	Description  string    `json:"description"`
	Technologies []string  `json:"technologies"`
	Status       string    `json:"status"`
	DemoURL      string    `json:"demoUrl"`
	SourceURL    string    `json:"sourceUrl"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

func sqliteDSN(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(ON)" +
		"&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_txlock=immediate"
}

func serveBareHandler(kind, arg string) error {
	var h http.HandlerFunc
	switch kind {
	case "bytes":
		file, ctype, _ := strings.Cut(arg, "|")
		body, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		length := fmt.Sprint(len(body))
		h = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("Content-Length", length)
			w.Write(body)
		}
	case "sqlite-list":
		db, err := sql.Open("sqlite", sqliteDSN(arg)+"&mode=ro")
		if err != nil {
			return err
		}
		db.SetMaxOpenConns(8)
		db.SetMaxIdleConns(8)
		h = func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			var total int
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE status = 'published'`).Scan(&total); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			rows, err := db.QueryContext(ctx, `SELECT id, title, description, technologies, status, created_at, updated_at
				FROM projects WHERE status = 'published' ORDER BY created_at DESC, id DESC LIMIT 20`)
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			defer rows.Close()
			type item struct {
				ID           string    `json:"id"`
				Title        string    `json:"title"`
				Description  string    `json:"description"`
				Technologies []string  `json:"technologies"`
				Status       string    `json:"status"`
				CreatedAt    time.Time `json:"createdAt"`
				UpdatedAt    time.Time `json:"updatedAt"`
			}
			out := struct {
				Projects []item `json:"projects"`
				Total    int    `json:"total"`
				Page     int    `json:"page"`
				Limit    int    `json:"limit"`
			}{Projects: []item{}, Total: total, Page: 1, Limit: 20}
			for rows.Next() {
				var it item
				var techs, created, updated string
				if err := rows.Scan(&it.ID, &it.Title, &it.Description, &techs, &it.Status, &created, &updated); err != nil {
					http.Error(w, err.Error(), 500)
					return
				}
				_ = json.Unmarshal([]byte(techs), &it.Technologies)
				it.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
				it.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
				out.Projects = append(out.Projects, it)
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			json.NewEncoder(w).Encode(out)
		}
	case "sqlite-insert":
		db, err := sql.Open("sqlite", sqliteDSN(arg))
		if err != nil {
			return err
		}
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS projects (id TEXT PRIMARY KEY, title TEXT NOT NULL,
			description TEXT NOT NULL, technologies TEXT NOT NULL, status TEXT NOT NULL, demo_url TEXT NOT NULL,
			source_url TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`); err != nil {
			return err
		}
		h = insertHandler(func(ctx context.Context, p *bareProject, techs string) error {
			ts := p.CreatedAt.Format("2006-01-02T15:04:05.000000Z")
			_, err := db.ExecContext(ctx, `INSERT INTO projects VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
				p.ID, p.Title, p.Description, techs, p.Status, p.DemoURL, p.SourceURL, ts, ts)
			return err
		})
	case "pgx-insert":
		ctx := context.Background()
		cfg, err := pgxpool.ParseConfig(arg)
		if err != nil {
			return err
		}
		cfg.MaxConns = 20 // as folio's pool
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return err
		}
		if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS bare_projects (id TEXT PRIMARY KEY, title TEXT NOT NULL,
			description TEXT NOT NULL, technologies JSONB NOT NULL, status TEXT NOT NULL, demo_url TEXT NOT NULL,
			source_url TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL, updated_at TIMESTAMPTZ NOT NULL)`); err != nil {
			return err
		}
		h = insertHandler(func(ctx context.Context, p *bareProject, techs string) error {
			_, err := pool.Exec(ctx, `INSERT INTO bare_projects VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
				p.ID, p.Title, p.Description, techs, p.Status, p.DemoURL, p.SourceURL, p.CreatedAt, p.UpdatedAt)
			return err
		})
	default:
		return fmt.Errorf("unknown bare handler %q", kind)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	return http.Serve(ln, h)
}

// insertHandler decodes a project, stores it with insert and answers 201 with it.
func insertHandler(insert func(ctx context.Context, p *bareProject, techs string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var p bareProject
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil || p.Title == "" {
			http.Error(w, "bad request", 400)
			return
		}
		p.ID = folio.NewID()
		p.CreatedAt = time.Now().UTC().Truncate(time.Microsecond)
		p.UpdatedAt = p.CreatedAt
		techs, _ := json.Marshal(p.Technologies)
		if err := insert(r.Context(), &p, string(techs)); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(p)
	}
}
