#!/bin/sh
# Re-captures perf61-options.txt: what the real perf prints for perf record
# options it adjusts or refuses (stderr, up to its usage text). Run where
# `perf` is perf 6.1 and /proc/sys/kernel/perf_event_max_sample_rate is
# 100000: sh perftool/testdata/perf61-options.sh > perftool/testdata/perf61-options.txt
echo "# $(perf version), kernel $(uname -r), perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
echo "# command: perf record -o /dev/null OPTIONS -e cpu-clock -- true (stderr up to the usage text)"
while read -r opts; do
	echo "### $opts"
	# SELF: this shell's pid, a running process for -p/-t
	opts=$(echo "$opts" | sed "s/SELF/$$/g")
	# shellcheck disable=SC2086
	perf record -o /dev/null $opts -e cpu-clock -- true 2>&1 >/dev/null |
		sed -n '/^ *Usage:/q;/^\[ perf record:/d;p'
done <<'LIST'
-m 3
-m 0
-m 200
-m 3,5
-m 4294967295
-m 4294967296
-m 99999999999
-m 3,99999999999
-F 1000000000
-F 10000000000
-F -5
-F max
--strict-freq -F 1000000000
-F 0
-c abc
-c -1
--per
-e cpu-clock/period=2000,aux-action=pause/
-e syscalls:sys_enter_close/aux-action=resume/
-e {cpu-clock,syscalls:sys_enter_close/aux-action=resume/}
-p SELF -C 0
-p SELF -a
-t SELF -a --per-thread
--per-thread -a
LIST
