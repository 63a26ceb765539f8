"""Build `dev.json`, the retrieval benchmark's own dev set, in the LoCoMo JSON layout, from `dev_*.txt`.

The sources are written by hand, in a compact form that is easy to read and review:

    # sample: dev-en-1
    # speakers: Maya | Jonah
    ## 2023-03-04 10:12                      a session and when it took place
    Maya: Morning! ... #label                a turn; an optional trailing #label names it for the questions
    # questions
    single | question | answer | label, label   category | question | answer | its evidence turns

Categories map to LoCoMo's numbers: multi 1, temporal 2, open 3, single 4 (5, adversarial, is not used).
Run `python benchmarks/data/build_dev.py` after editing a source; the output is committed beside them.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATEGORIES = {"multi": 1, "temporal": 2, "open": 3, "single": 4}
LABEL = re.compile(r"\s+#([\w-]+)\s*$")


def locomo_date(stamp: str) -> str:
    """ "2023-05-08 13:56" as LoCoMo writes it: "1:56 pm on 8 May, 2023"."""
    t = datetime.strptime(stamp, "%Y-%m-%d %H:%M")
    return f"{t.hour % 12 or 12}:{t.minute:02d} {'am' if t.hour < 12 else 'pm'} on {t.day} {t:%B}, {t.year}"


def parse(path: Path) -> dict:
    sample_id, speakers, sessions, labels, qa = "", [], [], {}, []
    in_questions = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("# sample:"):
            sample_id = line.split(":", 1)[1].strip()
        elif line.startswith("# speakers:"):
            speakers = [s.strip() for s in line.split(":", 1)[1].split("|")]
        elif line == "# questions":
            in_questions = True
        elif line.startswith("## "):
            sessions.append({"at": line[3:].strip(), "turns": []})
        elif in_questions:
            category, question, answer, evidence = (part.strip() for part in line.split("|"))
            missing = [e.strip() for e in evidence.split(",") if e.strip() not in labels]
            if missing:
                raise SystemExit(f"{path.name}:{number}: unknown labels {missing}")
            ids = [labels[e.strip()] for e in evidence.split(",")]
            qa.append(
                {"question": question, "answer": answer, "evidence": ids, "category": CATEGORIES[category]}
            )
        else:
            speaker, said = line.split(":", 1)
            if speaker not in speakers:
                raise SystemExit(f"{path.name}:{number}: unknown speaker {speaker!r}")
            found = LABEL.search(said)
            if found:
                said = said[: found.start()]
            dia_id = f"D{len(sessions)}:{len(sessions[-1]['turns']) + 1}"
            if found:
                if found[1] in labels:
                    raise SystemExit(f"{path.name}:{number}: label {found[1]!r} used twice")
                labels[found[1]] = dia_id
            sessions[-1]["turns"].append({"speaker": speaker, "dia_id": dia_id, "text": said.strip()})
    conversation: dict = {"speaker_a": speakers[0], "speaker_b": speakers[1]}
    for i, session in enumerate(sessions, 1):
        conversation[f"session_{i}_date_time"] = locomo_date(session["at"])
        conversation[f"session_{i}"] = session["turns"]
    return {"sample_id": sample_id, "conversation": conversation, "qa": qa}


def main() -> int:
    samples = [parse(path) for path in sorted(HERE.glob("dev_*.txt"))]
    out = HERE / "dev.json"
    out.write_text(json.dumps(samples, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for s in samples:
        turns = sum(len(v) for k, v in s["conversation"].items() if re.fullmatch(r"session_\d+", k))
        print(f"{s['sample_id']}: {turns} turns, {len(s['qa'])} questions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
