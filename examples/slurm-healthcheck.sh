#!/bin/bash
# gpudoctor as Slurm's HealthCheckProgram (slurm.conf):
#
#   HealthCheckProgram=/usr/local/sbin/gpudoctor-healthcheck     # this file
#   HealthCheckInterval=300
#   HealthCheckNodeState=IDLE                                    # only check nodes no job is using
#
# slurmd runs it as root on every node and kills it if it has not finished within 60 seconds (slurm.conf(5));
# Slurm itself does nothing with the result: the program must drain the node. So this script:
#   - runs `gpudoctor check --json` with a 45 s limit (it takes well under a second on a healthy node),
#   - keeps the report in $GPUDOCTOR_REPORT_DIR/<node>.json (a shared directory `gpudoctor fleet --from` reads),
#   - exit 1 from gpudoctor (an error finding) or a timeout: drains the node with a "gpudoctor:" reason,
#   - exit 0: resumes the node only if it was drained by this script (another reason is left alone),
#   - exit 2 or 3 (gpudoctor itself broken): logs and leaves the node as it is: never a false alarm.
# It exits with gpudoctor's code (124 on timeout), so NHC-style wrappers can act on it too.
set -u

GPUDOCTOR=${GPUDOCTOR:-gpudoctor}
REPORT_DIR=${GPUDOCTOR_REPORT_DIR:-/var/lib/gpudoctor}
LIMIT_S=${GPUDOCTOR_LIMIT_S:-45}
NODE=${SLURMD_NODENAME:-$(hostname -s)}

mkdir -p "$REPORT_DIR"
report="$REPORT_DIR/$NODE.json"
timeout "$LIMIT_S" $GPUDOCTOR check --json ${GPUDOCTOR_CHECK_OPTIONS:-} >"$report.tmp" 2>/dev/null
rc=$?
[ -s "$report.tmp" ] && mv -f "$report.tmp" "$report" || rm -f "$report.tmp"

case $rc in
  0)
    if scontrol show node "$NODE" 2>/dev/null | grep -q "Reason=gpudoctor:"; then
      scontrol update NodeName="$NODE" State=RESUME
    fi ;;
  1)
    scontrol update NodeName="$NODE" State=DRAIN Reason="gpudoctor: error findings, see $report" ;;
  124)
    scontrol update NodeName="$NODE" State=DRAIN Reason="gpudoctor: check timed out after ${LIMIT_S}s" ;;
  *)
    logger -t gpudoctor-healthcheck "gpudoctor check exited $rc on $NODE; node left as it is" 2>/dev/null || true ;;
esac
exit $rc
