#!/usr/bin/env bash
# A stand-in for POV-Ray, copied by tests to a folder on PATH as `povray`: +O<name> gets a 1x1 PNG (a
# render writes its record into it) after a progress report on stderr. Its environment steers it:
#   FAKE_POVRAY_FAIL=1          every render fails with a parse error
#   FAKE_POVRAY_BLOCK=NAME      makes a non-empty folder NAME in the output folder (POV-Ray runs in a
#                               render's private folder inside it) while rendering NAME, so a rename
#                               onto NAME fails
#   FARM_COUNT=FILE             each render appends its image's stem ("frame_0003") to FILE
#   FARM_FAIL="STEM ..."        the renders of these stems fail
#   FARM_BARRIER=DIR:N          waits until N renders reached DIR (they then finish at once)
#   FARM_SLEEP=S                S seconds of work
#   FARM_PIDS=FILE, FARM_HANG=1 its pid to FILE; sleeps for good
for a in "$@"; do
	case "$a" in +O*) out=${a#+O} ;; esac
done
[ -n "${FARM_PIDS:-}" ] && echo $$ >>"$FARM_PIDS"
[ -n "${FARM_HANG:-}" ] && exec sleep 600
stem=${out##*/}
stem=${stem%%.*}
printf 'Rendered 1 of 2 pixels (50%%)\rRendered 2 of 2 pixels (100%%)\r\n' >&2
[ -n "${FARM_COUNT:-}" ] && echo "$stem" >>"$FARM_COUNT"
if [ -n "${FAKE_POVRAY_FAIL:-}" ]; then
	echo "Parse Error: a stand-in failure" >&2
	exit 1
fi
case " ${FARM_FAIL:-} " in *" $stem "*) echo "Parse Error: a stand-in failure for $stem" >&2; exit 1 ;; esac
if [ -n "${FARM_BARRIER:-}" ]; then
	touch "${FARM_BARRIER%:*}/$stem.$$"
	while [ "$(ls "${FARM_BARRIER%:*}" | wc -l)" -lt "${FARM_BARRIER#*:}" ]; do sleep 0.02; done
fi
sleep "${FARM_SLEEP:-0}"
base64 -d >"$out" <<<'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
if [ -n "${FAKE_POVRAY_BLOCK:-}" ] && [ "$stem" = "${FAKE_POVRAY_BLOCK%%.*}" ]; then
	rm -f "../$FAKE_POVRAY_BLOCK" && mkdir -p "../$FAKE_POVRAY_BLOCK/x"  # only while rendering that image
fi
