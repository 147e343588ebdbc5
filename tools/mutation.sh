#!/usr/bin/env bash
# Mutation testing of the judging code (issue 11), one package at a time:
#
#   tools/mutation.sh PACKAGE [MUTANT_NAME_GLOB...]     PACKAGE: checks | matrix | envgen | snapshot
#   tools/mutation.sh PACKAGE --survivors               re-run only the mutants that survived (or had no test) last time
#   tools/mutation.sh PACKAGE --sample N [GLOB...]      run one mutant in N (of those matching GLOB), chosen by a hash
#                                                       of its name: a fixed, reproducible sample spread over every function
#   REF=COMMIT tools/mutation.sh PACKAGE ...           the same for that commit's tree instead of the checkout
#   tools/mutation.sh PACKAGE --score                   per-file killed/total of the last run; runs nothing
#
# Each package is mutated against the tests that cover it (TARGETS below). The run happens in its own copy of the
# checkout, out/mutation/PACKAGE/ (ignored by git), whose pyproject's [tool.mutmut] is rewritten for that package:
# mutmut 3 reads its configuration only from ./pyproject.toml and keeps its results in ./mutants/, so separate
# directories keep the packages' results apart and let a re-run reuse them. `mutmut run` runs niced with one child
# (the machine is shared); afterwards `cd out/mutation/PACKAGE && mutmut results` lists survivors and
# `mutmut show NAME` shows one. mutmut 3 keeps a verdict until the mutated function changes, so after adding tests
# use --survivors (mutants named on the command line are always re-run). MUTMUT (default: mutmut next to PYTHON, else on PATH) picks the mutmut binary.
set -euo pipefail
cd "$(dirname "$0")/.."

package="${1:-}"
case "$package" in
  checks)   mutate='"gpudoctor/checks/*.py"';                        tests='"tests/checks", "tests/evidence", "tests/amd"' ;;
  matrix)   mutate='"gpudoctor/matrix/*.py"';                        tests='"tests/matrix", "tests/checks", "tests/envgen", "tests/amd", "tests/bench"' ;;
  envgen)   mutate='"gpudoctor/envgen/*.py"';                        tests='"tests/envgen"' ;;
  snapshot) mutate='"gpudoctor/snapshot.py", "gpudoctor/snapshot_values.py"'
            tests='"tests/test_snapshot.py", "tests/test_snapshot_values.py", "tests/test_schema.py", "tests/evidence"' ;;
  *) echo "usage: tools/mutation.sh checks|matrix|envgen|snapshot [MUTANT_NAME_GLOB...]" >&2; exit 2 ;;
esac
shift

python="${PYTHON:-python3}"
mutmut="${MUTMUT:-$(dirname "$(command -v "$python")")/mutmut}"
[ -x "$mutmut" ] || mutmut=mutmut

work="out/mutation/$package"

score() {  # per file: killed (a test failed, or the mutant ran past its time limit) / mutants run; the last sample alone
  (cd "$work" && "$python" - <<'EOF'
import json
from pathlib import Path

KILLED = {1, 3, 24, -24, 36, 152, 255}  # mutmut's exit codes for "killed" and "timeout"
sample = set(Path("sample.txt").read_text().split()) if Path("sample.txt").exists() else None
for title, keep in (("all mutants run", lambda name: True), ("the last sample", lambda name: name in sample)):
    if title != "all mutants run" and sample is None:
        continue
    print(f"== {title}")
    all_killed = all_run = 0
    for meta in sorted(Path("mutants/gpudoctor").rglob("*.py.meta")):
        if not Path(str(meta)[len("mutants/"):-len(".meta")]).exists():
            continue  # a module the checkout no longer has: its verdicts are stale
        codes = [c for name, c in json.loads(meta.read_text())["exit_code_by_key"].items() if keep(name)]
        run = [c for c in codes if c is not None]
        killed = sum(c in KILLED for c in run)
        all_killed, all_run = all_killed + killed, all_run + len(run)
        if codes:
            not_run = f"  ({len(codes) - len(run)} not run)" if len(run) < len(codes) else ""
            print(f"{meta.relative_to('mutants').as_posix()[:-5]:42} {killed:5}/{len(run):<5} {100 * killed / max(len(run), 1):5.1f}%{not_run}")
    print(f"{'all':42} {all_killed:5}/{all_run:<5} {100 * all_killed / max(all_run, 1):5.1f}%")
EOF
  )
}
if [ "${1:-}" = --score ]; then score; exit 0; fi

mkdir -p "$work"
rm -rf "$work/gpudoctor" "$work/tests"  # no stale copies of deleted files; mutants/ (the results) stays
# The checkout as git sees it (tracked and new, unignored files), so a test added but not committed is used too;
# with REF=COMMIT, that commit instead (e.g. REF=main to measure the score before a branch's tests).
if [ -n "${REF:-}" ]; then
  git archive "$REF" | tar -xf - -C "$work"
else
  git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$work"
fi

# Replace the [tool.mutmut] table (the last table in pyproject.toml) with this package's.
"$python" - "$work/pyproject.toml" "$mutate" "$tests" <<'EOF'
import sys
from pathlib import Path

path, mutate, tests = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
text = path.read_text()
head = text.split("\n[tool.mutmut]\n")[0]
path.write_text(head + f"""
[tool.mutmut]
source_paths = ["gpudoctor/"]
only_mutate = [{mutate}]
also_copy = ["matrices/", "templates/", "tools/", "docs/", "benchmarks/", "examples/"]
pytest_add_cli_args_test_selection = [{tests}]
pytest_add_cli_args = ["-m", "not slow", "-q", "-p", "no:cacheprovider"]
""")
EOF

if [ "${1:-}" = --survivors ]; then
  mapfile -t names < <(cd "$work" && "$mutmut" results | sed -n 's/^ *\([^ :]*\): \(survived\|no tests\)$/\1/p')
  if [ "${#names[@]}" -eq 0 ]; then echo "no survivors"; score; exit 0; fi
  set -- "${names[@]}"
fi
if [ "${1:-}" = --sample ]; then
  every="${2:?--sample needs N}"
  # Generate the mutants and the test map without running any: a name that matches none stops mutmut right there.
  (cd "$work" && nice -n 19 "$mutmut" run --max-children 1 "gpudoctor.none-such" >/dev/null 2>&1) || true
  shift 2
  mapfile -t names < <(cd "$work" && "$python" - "$every" "$@" <<'EOF'
import fnmatch, hashlib, json, sys
from pathlib import Path

every, globs = int(sys.argv[1]), sys.argv[2:] or ["*"]
for meta in sorted(Path("mutants/gpudoctor").rglob("*.py.meta")):
    for name in json.loads(meta.read_text())["exit_code_by_key"]:
        if any(fnmatch.fnmatch(name, g) for g in globs) and int(hashlib.sha256(name.encode()).hexdigest(), 16) % every == 0:
            print(name)
EOF
  )
  printf '%s\n' "${names[@]}" > "$work/sample.txt"
  echo "== $package: a sample of ${#names[@]} mutants (one in $every)"
  set -- "${names[@]}"
fi
start=$(date +%s)
(cd "$work" && nice -n 19 "$mutmut" run --max-children 1 "$@")
echo "== $package: mutmut run took $(( $(date +%s) - start )) s (in $work)"
score
