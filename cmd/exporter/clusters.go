package exporter

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/zkscope/zkscope/cmd/cmdutil"
	"github.com/zkscope/zkscope/config"
	"github.com/zkscope/zkscope/exporter"
	"github.com/zkscope/zkscope/redisview"
	"github.com/zkscope/zkscope/zkview"
)

// resolveClusters is a cluster and its source for each --context (or the
// one target); closeAll closes the Redis clients opened.
func resolveClusters(f *cmdutil.Factory, o exporterOptions) ([]*exporter.Cluster, []exporter.Source, func(), error) {
	type named struct {
		name string
		t    config.Target
	}
	var targets []named
	if len(o.Contexts) == 0 {
		targets = append(targets, named{targetName(f), f.Target()})
	}
	seen := map[string]bool{}
	for _, name := range o.Contexts {
		if seen[name] {
			return nil, nil, nil, cmdutil.Usagef("--context %s given twice", name)
		}
		seen[name] = true
		targets = append(targets, named{name, contextTarget(f, name)})
	}
	redis, zookeeper := false, false
	for _, n := range targets {
		redis, zookeeper = redis || n.t.IsRedis(), zookeeper || !n.t.IsRedis()
	}
	if err := checkArgsFit(redis, zookeeper, o); err != nil {
		return nil, nil, nil, err
	}
	var clusters []*exporter.Cluster
	var sources []exporter.Source
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	for _, n := range targets {
		if n.t.IsDB() {
			closeAll()
			return nil, nil, nil, cmdutil.Usagef("cluster %s: the exporter follows ZooKeeper and Redis, not yet a database server", n.name)
		}
		if n.t.Err != nil {
			closeAll()
			return nil, nil, nil, cmdutil.Usagef("cluster %s: %v", n.name, n.t.Err)
		}
		if n.t.IsRedis() {
			c, err := cmdutil.OpenRedis(n.t.Redis.Config)
			if err != nil {
				closeAll()
				return nil, nil, nil, fmt.Errorf("cluster %s: %w", n.name, err)
			}
			closers = append(closers, func() { c.Close() })
			src := exporter.Redis{Client: c, Interval: o.PollInterval}
			clusters = append(clusters, exporter.NewCluster(n.name, src.Mode(), o.patterns()))
			sources = append(sources, src)
			continue
		}
		cfg := n.t.ZooKeeper
		cfg.FollowPause = exporter.FollowPause
		dial := func(ctx context.Context) (*zkview.Client, error) { return f.Dial(ctx, cfg, func(string) {}) }
		src := exporter.ZooKeeper{Dial: dial, Options: o.followOptions()}
		clusters = append(clusters, exporter.NewCluster(n.name, src.Mode(), o.paths()))
		sources = append(sources, src)
	}
	return clusters, sources, closeAll, nil
}

// checkArgsFit refuses PATH arguments when every cluster is Redis's and
// --pattern when none is: they would be ignored.
func checkArgsFit(redis, zookeeper bool, o exporterOptions) error {
	switch {
	case !zookeeper && len(o.Paths) > 0:
		return cmdutil.Usagef("PATH arguments are ZooKeeper paths, and every cluster here is Redis's: give the key patterns with --pattern")
	case !redis && len(o.Patterns) > 0:
		return cmdutil.Usagef("--pattern selects Redis keys, and every cluster here is ZooKeeper's: give the paths as arguments")
	}
	return nil
}

// contextTarget resolves the named context alone: neither --server nor
// ZKSCOPE_SERVER/ZKSCOPE_CONTEXT override its servers.
func contextTarget(f *cmdutil.Factory, name string) config.Target {
	fl := f.Flags
	fl.Context, fl.Server = name, ""
	return config.Resolve(fl, func(k string) string {
		if k == "ZKSCOPE_SERVER" || k == "ZKSCOPE_CONTEXT" {
			return ""
		}
		return f.Getenv(k)
	})
}

// targetName is the label of the one target: its context's name, else
// its servers.
func targetName(f *cmdutil.Factory) string {
	if f.Flags.Server == "" && f.Getenv("ZKSCOPE_SERVER") == "" {
		if fc, _, err := f.ConfigFile(); err == nil {
			if name := f.ContextName(fc); name != "" {
				return name
			}
		}
	}
	t := f.Target()
	if t.IsRedis() {
		return strings.Join(redisAddrs(t.Redis.Config), ",")
	}
	return cmp.Or(strings.Join(t.ZooKeeper.Servers, ","), "default")
}

func redisAddrs(cfg redisview.Config) []string {
	out := make([]string, len(cfg.Servers))
	for i, e := range cfg.Servers {
		out[i] = e.Addr
	}
	return out
}
