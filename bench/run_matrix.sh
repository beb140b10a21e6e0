#!/usr/bin/env bash
# Run the figures of docs/benchmarks.md; JSON reports go to bench/results/.
# Each run waits (at most 10 min) for the machine to be quiet (1-min load < 1.0).
# Usage: bench/run_matrix.sh [NAME...]   (default: all runs below)
set -u
cd "$(dirname "$0")/.."
out=bench/results
mkdir -p "$out"
declare -A RUNS=(
  [mem-100]="--store memory --rooms 100 --duration 30"
  [redis-100]="--store redis --rooms 100 --duration 30"
  [mem-1000]="--store memory --rooms 1000 --duration 30"
  [redis-1000]="--store redis --rooms 1000 --duration 30"
  [mem-1000-human]="--store memory --rooms 1000 --duration 60 --time-scale 1 --think-ms 2500"
  [redis-1000-human]="--store redis --rooms 1000 --duration 60 --time-scale 1 --think-ms 2500"
  [redis-1000-human-w2]="--store redis --rooms 1000 --duration 60 --time-scale 1 --think-ms 2500 --server-workers 2"
)
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(mem-100 redis-100 mem-1000 redis-1000 mem-1000-human redis-1000-human redis-1000-human-w2)
for name in "${names[@]}"; do
  for _ in $(seq 1 60); do
    awk '{exit !($1 < 1.0)}' /proc/loadavg && break
    sleep 10
  done
  echo "== $name: crisp bench ${RUNS[$name]} (load $(cut -d' ' -f1-3 /proc/loadavg))"
  python -m crisp.bench ${RUNS[$name]} --seed 1 --json > "$out/$name.json" || echo "exit $?"
  python -c "import json,sys; from crisp.bench import table; print(table(json.load(open(sys.argv[1]))))" "$out/$name.json"
done
