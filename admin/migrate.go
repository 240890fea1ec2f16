package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"kurz/migrations"
	"kurz/shared/chstore"
	"kurz/shared/config"
	"kurz/shared/pgstore"
)

// migrate applies both stores' migrations. PostgreSQL holds an advisory
// lock while it migrates, and another while ClickHouse's run: ClickHouse
// statements are idempotent, but its guarded backfills are not when two
// migrators run them at once. args are the command's flags.
func migrate(ctx context.Context, cfg *config.Config, log *slog.Logger, args []string) error {
	flags := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var o chstore.MigrateOptions
	flags.BoolVar(&o.AcceptLostUniques, "accept-lost-unique-clicks", false,
		"let ClickHouse 0012 run although raw months were dropped: their visitors go missing from unique clicks")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", flags.Arg(0))
	}
	start := time.Now()
	// Long enough for a held file's copy (ClickHouse 0014 copies the daily
	// breakdown at ~2.5M rows/s here, while edges spool): a run out of time
	// keeps the hold, and docs/operations.md says what that bounds.
	ctx, cancel := context.WithTimeout(ctx, 60*time.Minute)
	defer cancel()
	st, err := pgstore.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	pgFS, err := fs.Sub(migrations.Postgres, "postgres")
	if err != nil {
		return err
	}
	if _, err := st.Migrate(ctx, pgFS, log); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	cluster := clickHouseCluster(cfg)
	o.DialServer = chstore.ServerDialer(cfg.ClickHouseURL, cluster)
	ch, err := chstore.OpenCluster(ctx, cfg.ClickHouseURL, cluster)
	if err != nil {
		return err
	}
	defer ch.Close()
	chFS, err := fs.Sub(migrations.ClickHouse, "clickhouse")
	if err != nil {
		return err
	}
	if err := st.WithClickHouseMigrationLock(ctx, func() error { return chstore.MigrateClusterWith(ctx, ch, chFS, cluster, o) }); err != nil {
		return fmt.Errorf("clickhouse: %w", err)
	}
	log.Info("migrations applied", "took", time.Since(start).String(), "clickhouse_cluster", cluster.Name)
	return nil
}

// clickHouseCluster is the ClickHouse layout cfg names.
func clickHouseCluster(cfg *config.Config) chstore.Cluster {
	return chstore.Cluster{Name: cfg.ClickHouseCluster, Replicated: cfg.ClickHouseReplicated}
}
