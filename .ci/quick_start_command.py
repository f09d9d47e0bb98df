"""Print the README's Quick start command number N (1: install and run the main job, 2: install and test).

`.ci/run` runs command 2 exactly as written, so that CI and a new user run the same thing. Plain Python,
no dependencies: it runs before anything is installed.
"""

import re
import sys
from pathlib import Path

readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
commands = [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]
if len(commands) != 2:
    sys.exit(f"README Quick start: expected 2 commands, found {len(commands)}")
print(commands[int(sys.argv[1]) - 1])
