#!/usr/bin/env bash
# Run the figures of docs/benchmarks.md; JSON reports go to bench/results/NAME.json.
# Each run first waits (at most 10 min) for the machine to be quiet (1-min load < 1.0).
# Usage: bench/run_matrix.sh [NAME...]   (default: every run below, in this order)
set -u
cd "$(dirname "$0")/.."
out=bench/results
mkdir -p "$out"
fast="--duration 30"                                             # think 200 ms, time scale 0.05
human="--duration 60 --time-scale 1 --think-ms 2500"             # real timers, 2.5 s per move
slow="--duration 60 --time-scale 1 --think-ms 5000"              # real timers, 5 s per move
pool="--redis-max-connections 4000"
declare -A RUNS=(
  [mem-100]="--store memory --rooms 100 $fast"
  [redis-100]="--store redis --rooms 100 $fast"
  [mem-100-human]="--store memory --rooms 100 $human"
  [redis-100-human]="--store redis --rooms 100 $human"
  [mem-1000]="--store memory --rooms 1000 $fast"
  [redis-1000]="--store redis --rooms 1000 $fast"
  [mem-1000-human]="--store memory --rooms 1000 $human"
  [redis-1000-human]="--store redis --rooms 1000 $human"
  [redis-1000-human-w2]="--store redis --rooms 1000 $human --server-workers 2"
  [mem-1000-slow]="--store memory --rooms 1000 $slow"
  [redis-1000-slow]="--store redis --rooms 1000 $slow"
  [redis-1000-slow-w2]="--store redis --rooms 1000 $slow --server-workers 2"
  [redis-1000-slow-pool]="--store redis --rooms 1000 $slow $pool"
)
ORDER=(mem-100 redis-100 mem-100-human redis-100-human mem-1000 redis-1000 mem-1000-human
       redis-1000-human redis-1000-human-w2 mem-1000-slow redis-1000-slow redis-1000-slow-w2)
names=("$@")
[ ${#names[@]} -eq 0 ] && names=("${ORDER[@]}")
for name in "${names[@]}"; do
  for _ in $(seq 1 60); do
    awk '{exit !($1 < 1.0)}' /proc/loadavg && break
    sleep 10
  done
  echo "== $name: crisp bench ${RUNS[$name]} --seed 1 (load $(cut -d' ' -f1-3 /proc/loadavg))"
  python -m crisp.bench ${RUNS[$name]} --seed 1 --json > "$out/$name.json" || echo "exit $?"
  python -c "import json,sys; from crisp.bench import table; print(table(json.load(open(sys.argv[1]))))" "$out/$name.json"
done
