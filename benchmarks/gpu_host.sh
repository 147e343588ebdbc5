#!/usr/bin/env bash
# benchmarks/gpu_host.sh [OUT_DIR] -- everything worth capturing on a GPU host, in one call, in under 8 minutes:
# the machine's own outputs (nvidia-smi in its forms, pip list, collect_env), check / check --json /
# check --markdown / check --deep --json / check --save, verify for each installed framework, bench --quick and
# bench (JSON and HTML), pytest -m gpu, and the fast suite (-n auto where pytest-xdist is installed). One log (log.txt,
# each step as "=== [T s] title" ... "--- rc=N wall=S s: command") and the artefacts go into OUT_DIR (default
# out/gpu-host-<UTC time>), the layout of ../shared/fixtures/h200-host/.
#
# Run it from a checkout, with the Python that has gpudoctor and the frameworks installed:
#     PYTHON=/opt/venv/bin/python benchmarks/gpu_host.sh /tmp/gpu-host
# Without an NVIDIA GPU it runs its CPU form (verify's CNN test only, bench --quick only, no pytest -m gpu) and says so.
# Every step runs whatever the one before it gave; each has its own timeout, and none starts once the 8-minute
# budget (GPU_HOST_BUDGET_S, default 470 s) is spent: its line then says it was skipped for time.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
out=${1:-out/gpu-host-$(date -u +%Y%m%dT%H%M%SZ)}
budget=${GPU_HOST_BUDGET_S:-470}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/log.txt"
: >"$log"
summary=()
export NO_COLOR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# step TITLE LIMIT_S OUTFILE|- COMMAND...: runs COMMAND with a timeout, its stdout to OUTFILE (and the log), its
# stderr to the log; records rc and wall time.
step() {
  local title=$1 limit=$2 file=$3; shift 3
  local left=$((budget - SECONDS))
  echo "=== [${SECONDS}s] $title" >>"$log"
  if [ "$left" -lt 15 ]; then
    echo "--- skipped: the ${budget}s budget is spent: $*" >>"$log"; summary+=("skipped  $title"); return 0
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local start=$SECONDS rc
  if [ "$file" = - ]; then
    timeout --kill-after=10 "$limit" "$@" >>"$log" 2>&1; rc=$?
  else
    timeout --kill-after=10 "$limit" "$@" >"$out/$file" 2>>"$log"; rc=$?
    head -c 20000 "$out/$file" >>"$log"
  fi
  local wall=$((SECONDS - start))
  [ -z "$(tail -c 1 "$log")" ] || echo "" >>"$log"  # pytest's progress line, cut by a timeout, has no newline
  local note=""; [ "$rc" = 124 ] && note=" (timed out)"
  echo "--- rc=$rc wall=${wall}s$note: $*" >>"$log"
  echo "" >>"$log"
  summary+=("$(printf 'rc=%-3s %4ss  %s' "$rc" "$wall" "$title")")
}

installed() { "$PY" -c "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('$1') else 1)" 2>/dev/null; }

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
{
  echo "gpudoctor GPU-host run, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(git rev-parse --short HEAD 2>/dev/null || echo 'no git') on $(hostname)"
  echo "Python: $("$PY" -c 'import sys; print(sys.version.split()[0], sys.executable)')"
  echo "CPU cores: $(nproc 2>/dev/null || echo '?'); NVIDIA GPUs listed by nvidia-smi -L: ${gpus}"
  [ "$gpus" -gt 0 ] || echo "No NVIDIA GPU here: the CPU form (verify's CNN test only, bench --quick only)."
  echo ""
} >>"$log"

# The machine's own outputs (test data for the suite: tests/data/nvidia-smi, tests/data/facts).
if command -v nvidia-smi >/dev/null; then
  step "nvidia-smi" 30 nvidia-smi.txt nvidia-smi
  step "nvidia-smi -q" 30 nvidia-smi-q.txt nvidia-smi -q
  step "nvidia-smi -q -x" 30 nvidia-smi-q-x.xml nvidia-smi -q -x
  step "nvidia-smi topo -m" 30 nvidia-smi-topo-m.txt nvidia-smi topo -m
fi
step "pip list" 60 pip-list.txt "$PY" -m pip list
installed torch && step "torch's collect_env" 90 collect_env.txt "$PY" -m torch.utils.collect_env

# What gpudoctor says here.
step "check" 60 check.txt "$PY" -m gpudoctor check
step "check --json" 60 check.json "$PY" -m gpudoctor check --json
step "check --markdown" 60 check.md "$PY" -m gpudoctor check --markdown
step "check --deep --json" 150 check-deep.json "$PY" -m gpudoctor check --deep --json
step "check --save" 60 - "$PY" -m gpudoctor check --save "$out/snap.json" --force

# verify, one framework at a time (each its own child processes); the CPU form runs the CNN test only.
tests=cnn,lstm,transfer; [ "$gpus" -gt 0 ] || tests=cnn
for fw in torch tf jax; do
  module=$fw; [ "$fw" = tf ] && module=tensorflow
  if installed "$module"; then
    step "verify --framework $fw --test $tests" 150 "verify-$fw.json" "$PY" -m gpudoctor verify --framework "$fw" --test "$tests" --json
  else
    echo "=== [${SECONDS}s] verify --framework $fw: not installed here, not run" >>"$log"; summary+=("absent   verify $fw")
  fi
done

# bench: --quick, then (on a GPU) the default run with its JSON and HTML.
if installed torch; then
  step "bench --quick" 90 bench-quick.txt "$PY" -m gpudoctor bench --quick
  if [ "$gpus" -gt 0 ]; then
    step "bench" 150 bench.txt "$PY" -m gpudoctor bench --save "$out/bench.json" --html "$out/bench.html" --force
  fi
else
  echo "=== [${SECONDS}s] bench: torch is not installed here, not run" >>"$log"; summary+=("absent   bench")
fi

# The suite last: the GPU-marked tests (on a GPU), then the fast part (in parallel where pytest-xdist is installed)
# with whatever the budget has left (on the H200 host with 16 cores: 53 s and 46 s; on 2 cores without a GPU and
# without xdist the fast suite alone takes over 5 minutes).
if [ "$gpus" -gt 0 ]; then
  step "the GPU-marked tests" 180 - "$PY" -m pytest -q -m gpu -p no:cacheprovider -rs
else
  echo "=== [${SECONDS}s] the GPU-marked tests: not run, no GPU here (each would skip)" >>"$log"; summary+=("absent   pytest -m gpu")
fi
xdist=(); installed xdist && xdist=(-n auto)
step "the fast suite (${xdist[*]:-one process, pytest-xdist is not installed})" 400 - \
  "$PY" -m pytest -q -m "not slow" -p no:cacheprovider "${xdist[@]}"

{
  echo "=== [${SECONDS}s] done: every step, its exit status and wall time"
  printf '%s\n' "${summary[@]}"
  echo "artefacts: $(cd "$out" && ls | tr '\n' ' ')"
} >>"$log"
tail -n $((${#summary[@]} + 2)) "$log"
echo "log: $log"
