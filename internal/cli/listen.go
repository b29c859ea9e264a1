package cli

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/sqldb"
)

// listenDeps is what listenAndServe serves and stops.
type listenDeps struct {
	Config  *config.Config
	Env     Env
	DB      *sqldb.DB
	Server  *httpapi.Server
	Handler http.Handler
	Log     *slog.Logger
	// StopBackground ends what runs beside the server and waits for it, once the server has
	// shut down.
	StopBackground func()
}

// listenAndServe listens on FOLIO_ADDR (and METRICS_ADDR), serves until ctx ends, then finishes
// in-flight requests within FOLIO_SHUTDOWN_TIMEOUT.
func listenAndServe(ctx context.Context, d listenDeps) error {
	cfg, log := d.Config, d.Log
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on FOLIO_ADDR %s: %w", cfg.Addr, err)
	}
	// METRICS_ADDR: /metrics on a listener of its own (an internal network or localhost), and
	// nowhere else.
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("listen on METRICS_ADDR %s: %w", cfg.MetricsAddr, err)
		}
		metricsSrv := &http.Server{Handler: d.Server.MetricsHandler(), ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second, MaxHeaderBytes: 16 << 10, ErrorLog: slogErrorLog(log)}
		log.Info("metrics listening", "addr", mln.Addr().String(), "token", cfg.MetricsToken != "")
		go metricsSrv.Serve(mln)
		defer metricsSrv.Close()
	}
	hs := &http.Server{
		Handler:           d.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slogErrorLog(log),
	}
	log.Info("folio listening", "addr", ln.Addr().String(), "database", string(d.DB.Dialect), "env", cfg.Env)
	announceStart(ctx, cfg, d.DB, ln.Addr().String(), log) // where the dashboard is, who can sign in (firststart.go)
	if d.Env.Ready != nil {
		d.Env.Ready(ln.Addr().String())
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down; finishing in-flight requests", "timeout", cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	err = hs.Shutdown(sctx)
	d.StopBackground()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// slogErrorLog routes net/http's own error messages (TLS handshakes, bad requests) into slog.
func slogErrorLog(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}
