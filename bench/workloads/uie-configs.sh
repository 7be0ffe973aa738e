# SPDX-License-Identifier: Apache-2.0
# Our configurations for bench/run (sourced): Measure, Enforce and Enforce with
# fast path, each a uie-monitord of its own (own socket, vTPM key and log),
# provisioned once at the start of the run with its own signed package, so the
# run can switch between them freely.  Uses from bench/run: $uie, $monitord,
# $work, $wl, $objs, trusted[] and mon_pid[] (stopped by bench/run's EXIT trap).

uie_dir() { echo "$work/uie/$1"; }

uie_available() {
	[[ -x $uie && -x $monitord ]] && "$uie" run --help >/dev/null 2>&1
}

# uie_monitor_start DIR: starts a monitor serving DIR/sock in the foreground as
# our child; returns once it answers a status request.
uie_monitor_start() {
	local d=$1 key=$work/uie/key
	local -a timing=()
	[[ $d == *-timing ]] && timing=(--timing)
	# --cpu 0: interceptors follow the monitor to its CPU, so a request does not
	# wake an idle vCPU (docs/PERFORMANCE.md, "Where the time goes").
	"$monitord" --foreground --cpu 0 --socket "$d/sock" --vtpm "builtin:$d/vtpm/ak.pem" \
		--state-dir "$d/state" \
		--trust-key "$key.pub" --log-file "$d/monitor.log" "${timing[@]}" &
	mon_pid[$d]=$!
	for _ in $(seq 200); do
		"$uie" status --socket "$d/sock" > /dev/null 2>&1 && return 0
		kill -0 "${mon_pid[$d]}" 2>/dev/null || break
		sleep 0.05
	done
	echo "uie-monitord did not come up, see $d/monitor.log" >&2
	return 1
}

# uie_provision DIR MODE BLOOM FILE...: scans FILE..., compiles a MODE policy,
# signs it bound to the monitor's current log prefix (with a Bloom hint when
# BLOOM is 1) and installs it.
uie_provision() {
	local d=$1 mode=$2 bloom=$3 key=$work/uie/key status records pcr
	local -a hint=()
	((bloom)) && hint=(--bloom)
	shift 3
	{
		"$uie" ref scan "$@" -o "$d/manifest" &&
		"$uie" policy compile --mode "$mode" --default deny "$d/manifest" -o "$d/table" &&
		status=$("$uie" status --socket "$d/sock") &&
		records=$(awk '$1 == "records:" {print $2}' <<< "$status") &&
		pcr=$(awk '$1 == "vpcr16:" {print $2}' <<< "$status") &&
		"$uie" policy sign --key "$key.pem" --epoch 1 --bind-seq "$records" --bind-pcr "$pcr" \
			"${hint[@]}" "$d/table" -o "$d/package" &&
		"$uie" policy install "$d/package" --socket "$d/sock"
	} > "$d/provision.log" 2>&1 || { cat "$d/provision.log" >&2; return 1; }
}

# uie_setup CONFIG FILE...: a monitor for CONFIG with FILE... allowed.
uie_setup() {
	local c=$1 d
	shift
	d=$(uie_dir "$c")
	rm -rf "$d"
	mkdir -p "$d"
	if [[ ! -f $work/uie/key.pem ]]; then
		"$uie" key gen -o "$work/uie/key.pem" --pub "$work/uie/key.pub" > /dev/null
	fi
	uie_monitor_start "$d"
	case $c in
	measure*) uie_provision "$d" measure 0 "$@" ;;
	enforce|enforce-timing) uie_provision "$d" enforce 0 "$@" ;;
	enforce-fp) uie_provision "$d" enforce 1 "$@" ;;
	esac
}

# uie_grant_timing OUT CMD...: runs CMD once under `uie run --timing`, with
# a monitor of its own in Enforce (allow list trusted[]) started with
# --timing and stopped afterwards; OUT gets the interceptor's medians per
# notification ("uie: grants: ..." lines) and the monitor's per request
# ("monitor: ..."), for bench/plot/grants.py.
uie_grant_timing() {
	local out=$1 d
	shift
	d=$(uie_dir enforce-timing)
	uie_setup enforce-timing "${trusted[@]}" || return 1
	"$uie" run --socket "$d/sock" --timing -- "$@" 2>&1 > /dev/null | grep '^uie: grants: ' > "$out"
	kill -TERM "${mon_pid[$d]}"
	wait "${mon_pid[$d]}" 2> /dev/null || true
	unset "mon_pid[$d]"
	sed -n 's/^.*uie-monitord: timing: /monitor: /p' "$d/monitor.log" >> "$out"
	[[ -s $out ]]
}

# uie_check CONFIG: the monitor of CONFIG is still serving in the right mode.
uie_check() {
	local want=MEASURE
	[[ $1 == enforce* ]] && want=ENFORCE
	"$uie" status --socket "$(uie_dir "$1")/sock" | grep -q "^mode: $want$" ||
		{ echo "monitor of $1 is not in $want mode" >&2; return 1; }
}

# uie_prefix CONFIG: command words that run a program under CONFIG.
uie_prefix() {
	echo "$uie run --socket $(uie_dir "$1")/sock --"
}

secs() { printf '%d.%03d' $(($1 / 1000000000)) $(($1 / 1000000 % 1000)); }

# uie_evidence_bench OUT QUICK: fills the log of a MEASURE monitor with
# anonymous NX->X records (each one a real request through `uie run`) up to
# 1k, 100k and 1M records (quick: 1k, 10k) and times `uie evidence export`
# and `uie verify` (reference manifest and policy checks included) at each
# size; writes CSV to OUT.
uie_evidence_bench() {
	local out=$1 d target have nonce t0 t1 t2 k verdict reps=3 sizes=(1000 100000 1000000)
	((!$2)) || { sizes=(1000 10000); reps=1; }
	d=$(uie_dir measure-evidence)
	uie_setup measure-evidence "${trusted[@]}"
	echo "records,export_s,verify_s,evidence_bytes,verdict" > "$out"
	for target in "${sizes[@]}"; do
		have=$("$uie" status --socket "$d/sock" | awk '$1 == "records:" {print $2}')
		# the fill's own exec adds 3 records (main, interpreter, libc)
		if ((target > have + 3)); then
			"$uie" run --socket "$d/sock" -- "$wl/mprotect-bench" -w 0 -s 4096 \
				$((target - have - 3)) - > /dev/null || return 1
		fi
		have=$("$uie" status --socket "$d/sock" | awk '$1 == "records:" {print $2}')
		for ((k = 0; k < reps; k++)); do
			nonce=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
			t0=$(date +%s%N)
			"$uie" evidence export --socket "$d/sock" --nonce "$nonce" -o "$d/ae" \
				--pubkey-out "$d/ak.pub" 2> "$d/export.err" ||
				{ echo "uie evidence export failed:" >&2; cat "$d/export.err" >&2; return 1; }
			t1=$(date +%s%N)
			"$uie" verify "$d/ae" --nonce "$nonce" --ak-pub "$d/ak.pub" \
				--reference "$d/manifest" --policy "$d/package" > "$d/verify.out" 2>&1 || true
			t2=$(date +%s%N)
			# the verdict is kept: a rejected verification is timed, and shown as such
			verdict=$(head -1 "$d/verify.out" | sed 's/^uie verify: //; s/,/;/g')
			echo "$have,$(secs $((t1 - t0))),$(secs $((t2 - t1))),$(stat -c %s "$d/ae"),$verdict"
		done >> "$out"
	done
}

# uie_profile OUT: system-wide perf samples (cpu-clock: this machine has no
# hardware counters, and the monitor's seccomp filter rules out valgrind)
# while the slowest paths run under Enforce: cold execve of the 1 MB
# executable, and dlopen of 16 1 MB objects.  Keeps the top symbols of our
# processes in OUT.
uie_profile() {
	local out=$1 d data=$work/perf.data comms
	d=$(uie_dir enforce)
	[[ -S $d/sock ]] || { echo "no Enforce monitor to profile" >&2; return 1; }
	comms=uie,uie-monitord,exec-bench,exe-1m,dlopen-bench
	: > "$out"
	for what in "execve 1 MB cold" "dlopen 16 x 1 MB"; do
		local -a cmd
		case $what in
		execve*) cmd=("$wl/exec-bench" -c 500 "$objs/exe/exe-1m") ;;
		dlopen*) cmd=("$wl/dlopen-bench" 200 "$objs"/dso/allowed/1m-{1..16}.so) ;;
		esac
		perf record -q -e cpu-clock -F 4999 -a -o "$data" -- \
			"$uie" run --socket "$d/sock" -- "${cmd[@]}" > /dev/null 2>&1 || return 1
		{
			echo "== $what, Enforce: cpu-clock samples of $comms, by process and object"
			perf report -i "$data" --stdio --comms "$comms" --sort comm,dso \
				--percentage relative --percent-limit 2 2> /dev/null | grep -v '^#' | grep -v '^$' | head -12
			echo "-- top symbols (addresses in stripped libraries summed per library)"
			perf report -i "$data" --stdio --comms "$comms" --sort comm,dso,sym \
				--percentage relative 2> /dev/null | awk '
				/^#/ || NF < 4 {next}
				{ pct = $1; sub("%", "", pct); key = $2 "  " $3 "  "
				  sym = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +/, "", sym)
				  if (sym ~ /^\[\.\] 0x/) sym = "[.] (unresolved addresses)"
				  t[key sym] += pct }
				END { for (k in t) if (t[k] >= 1.5) printf "%7.2f%%  %s\n", t[k], k }' |
				sort -rn | head -15
			echo
		} >> "$out"
	done
	rm -f "$data" "$data.old"
}
