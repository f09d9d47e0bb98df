"""Tools: everything that touches data or models. Tools know nothing of the graph, the nodes or `Context`.

Sub-packages, lowest first; each may import only the ones before it (plus `models` and `prompts`),
never `config`, `nodes`, `graph`, `eval` or a face (`tests/test_layers.py` checks it):

    common → sql, cypher → stores → media → understanding → ingest → retrieval → grounding → suggest

`sql` and `cypher` are peers (neither imports the other). Keep these `__init__` files light: they
import nothing, so `import queryweave.tools.x.y` costs only what `y` needs (CLI cold start).
"""
