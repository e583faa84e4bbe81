// Package explore searches the schedules of a scenario for a violation and
// shrinks the one it finds: the strategies (random, sparse, rapid, bounded),
// the parallel runner that keeps results independent of --jobs, the shrinker,
// the herd7-style outcome counts, and the replay files simrun replay reads.
//
// Every strategy is a function of its seed: the same Options give the same
// schedules, counts and shrunk violation. The primitive choosers (a seeded
// coin, a decision-list replay, a recorder) stay in sim, which the CPU and
// scheduler tests use; the rapid bridge is package simrapid.
//
// Files: explore.go (Explore, Options, Result, the random strategy),
// sparse.go and sparse_chooser.go, bounded.go, rapid.go, parallel.go,
// interrupt.go (Options.Context), shrink.go, json.go, replayfile.go (the
// file), identity.go (what a replay file checks: the scenario's hash, the
// knobs, the version; the questions --focus may name), questions.go (every
// decision's question), replay.go (Replay: the checks and the verdict),
// corpus.go (the failure corpus), merge.go (Merge: the shards of a search)
// and shardtree.go (a shard's tree of schedules, for Merge).
package explore
