"""Schemathesis against the OpenAPI document, over HTTP on loopback: for every operation, generated
requests (valid and not) never make the server fail, and every answer matches what the document says
(status, content type, body). A few examples an operation keep it to seconds.

One check is left out: that every request the document allows is accepted. The document gives each value's
type (a subject is a string); what a value may be (a subject that is not blank, a kind among five, an
importance from 1 to 5) is the engine's to say, with its own sentence, so a well-typed request may still
be refused with 400. That a wrong-typed one is refused is checked (`negative_data_rejection`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from conftest import Clock
from hypothesis import HealthCheck, given, settings
from schemathesis import Case, checks
from web_harness import seed, served

from mneme_core import Mneme
from mneme_core.web import create_app


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app of a seeded companion, served on loopback."""
    clock = Clock()
    m = Mneme(tmp_path_factory.mktemp("schema") / "mneme.db", space="mio", clock=clock, zone="UTC+8")
    seed(m, clock)
    try:
        with served(create_app(m)) as url:
            yield url
    finally:
        m.close()


def test_every_operation_answers_as_documented(address: str) -> None:
    schema = schemathesis.openapi.from_url(address + "/api/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 25, [op.label for op in operations]
    failures: list[str] = []
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
        def answers(case: Case) -> None:
            response = case.call(base_url=address)
            if response.status_code == 501:  # documented: the health check and the archive, until they exist
                assert response.json()["error"].endswith("not available in this version of the engine")
                return
            case.validate_response(response, excluded_checks=[checks.positive_data_acceptance])

        try:
            answers()
        except Exception as err:  # every operation is tried; the failures are reported together
            failures.append(f"{operation.label}: {type(err).__name__}: {str(err)[:1500]}")
    assert not failures, "\n\n".join(failures)
