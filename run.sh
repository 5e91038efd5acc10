#!/usr/bin/env bash
# Sets up everything chipgym needs on Debian 12 (as root), then runs a job:
#   bash run.sh demo    the main job: the DRC engine, the DRC env with a scripted agent, drc-v1 graded in one batch,
#                       Best-of-N selection, the CPU design env scoring two cores, a bug found by simulate, the NoC
#                       task checked and scored, PPO learning one DRC task
#   bash run.sh test    the test suite (what CI runs)
#   bash run.sh setup   only the set-up
# Idempotent and quiet when everything is already installed.
set -euo pipefail
cd "$(dirname "$0")"

# python3 runs timing models in the sandbox; opensta, qflow-tech-osu018 and qflow score chip designs
APT_PACKAGES=(klayout bubblewrap util-linux verilator yosys g++ make python3 opensta qflow-tech-osu018 qflow)
VENV=.venv

log() { echo "[chipgym] $*" >&2; }

apt_install() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        log "installing Debian packages: ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

python_ok() { "$1" -c 'import sys, venv, ensurepip; assert sys.version_info >= (3, 11)' 2>/dev/null; }

setup() {
    apt_install "${APT_PACKAGES[@]}"
    local python=${PYTHON:-python3}
    if ! python_ok "$python"; then
        apt_install python3 python3-venv python3-dev
        python=/usr/bin/python3
    fi
    [ -x "$VENV/bin/python" ] || { log "creating $VENV"; "$python" -m venv "$VENV"; }
    local stamp="$VENV/.chipgym-installed-$(sha256sum pyproject.toml | cut -c1-16)"
    if [ ! -e "$stamp" ]; then
        log "installing chipgym and its Python dependencies into $VENV"
        "$VENV/bin/pip" install -q --disable-pip-version-check -e ".[dev,rllib]" 2> >(grep -v "^WARNING: Location" >&2)
        touch "$stamp"
    fi
}

case "${1:-}" in
    setup) setup ;;
    demo)
        setup
        log "1/8 the DRC engine: a SKY130 deck on a layout, its violations drawn in out/demo/violations.png"
        "$VENV/bin/python" examples/drc_engine_demo.py
        log "2/8 chipgym/DrcScript-v0: a scripted agent on 5 SKY130 tasks of drc-v0 (the first run builds the dataset: 21,680 layouts, ~1 min)"
        rm -rf out/demo/episodes
        "$VENV/bin/python" examples/drc_scripted_agent.py --group sky130 --episodes 5 --record out/demo/episodes
        log "    the five episodes, saved by chipgym.wrappers.RecordEpisodes, replayed in fresh envs"
        "$VENV/bin/chipgym" replay out/demo/episodes/*.json
        log "3/8 drc-v1, 1,060 tasks at Rule2DRC's scale (the first run builds it: 24,042 evaluation,"
        log "    73,212 training and 4,240 public layouts, ~4 min; the grading ~1 min):"
        log "    exported in the published format, and every gold deck graded in one batch by the published evaluator's metric"
        rm -rf out/demo/drc-v1 out/demo/drc-v1-decks && mkdir -p out/demo/drc-v1-decks
        "$VENV/bin/chipgym" drc export --suite drc-v1 --out out/demo/drc-v1
        cp out/demo/drc-v1/problems/*/gold/*.drc out/demo/drc-v1-decks/
        "$VENV/bin/chipgym" drc grade out/demo/drc-v1/problems out/demo/drc-v1-decks --metric rule2drc | tail -n 1
        log "4/8 Best-of-N selection (chipgym select): 10 offline candidate decks on 12 drc-v0 test tasks, every method"
        log "    beside Oracle@10 (SplitTester with a budget of 16 generated test layouts); the table in out/demo/select"
        rm -rf out/demo/select
        "$VENV/bin/chipgym" select --method all --n 10 --tasks drc-v0 --split test --limit 12 --seed 0 \
            --out out/demo/select 2> out/demo/select.log || { tail -n 20 out/demo/select.log; exit 1; }
        log "5/8 chipgym/RtlDesign-v0: a scripted agent checks and submits both CPU fixtures; each submit runs the checks"
        log "    with held-out kernels, Yosys synthesis, OpenSTA timing and gate-level energy on osu018 (~2 min each the first time)"
        "$VENV/bin/python" examples/rtl_fixture_agent.py
        log "6/8 simulate: a scripted agent finds a broken core's bug by stepping it through pyverilator in the sandbox,"
        log "    reading waveforms and retirements; the window it looked at in out/demo/waveform.png"
        "$VENV/bin/python" examples/debug_with_simulate.py --png out/demo/waveform.png
        log "7/8 the noc task: the input-queued crossbar fixture checked (traffic against the reference, back-pressure,"
        log "    timing-model lockstep, formal) and scored on osu018 (~30 s the first time)"
        "$VENV/bin/chipgym" chip check chipgym/tasks/chip/noc/fixtures/crossbar --task noc
        "$VENV/bin/chipgym" chip score chipgym/tasks/chip/noc/fixtures/crossbar --task noc --profile osu018
        log "8/8 PPO (RLlib, 2 env runners) on chipgym/DrcTemplate-v0, one drc-v0 task whose answer is one template:"
        log "    10 iterations (~20 s), the learning curve in out/demo/ppo/learning_curve.png"
        rm -rf out/demo/ppo
        "$VENV/bin/chipgym" train drc --algo ppo --task sky130-0000 --iterations 10 --batch 32 --lr 3e-3 \
            --num-env-runners 2 --seed 0 --out out/demo/ppo 2> out/demo/ppo.log || { tail -n 20 out/demo/ppo.log; exit 1; }
        ;;
    test) setup; shift; "$VENV/bin/python" -m pytest "$@" ;;
    *) echo "usage: bash run.sh demo|test|setup" >&2; exit 2 ;;
esac
