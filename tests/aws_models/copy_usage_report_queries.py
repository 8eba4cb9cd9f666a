"""Copy the aggregation queries of HyperPod's official usage-report setup (the Lambda function in
awslabs/sagemaker-hyperpod-usage-report, cloudformation/usage-report.yaml, at the commit
`cost.usage_reports.git_ref` pins) into tests/aws_models/usage_report_reference.sql, verbatim, each
after a line `-- query: <its name in the function>`.

    python -m tests.aws_models.copy_usage_report_queries path/to/usage-report.yaml

The repository is Apache-2.0 (its LICENSE and NOTICE apply to the copied text). The tests run
these queries beside our own on the same raw rows (tests/test_usage_aggregation_sql.py): where
the two should agree, they must.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

from hyperpod_teams.spec.models import USAGE_REPORT_REF

QUERIES = ("CRESCENDO_SUMMARY", "CRESCENDO_DETAILED", "NON_CRESCENDO_SUMMARY")
REFERENCE = Path(__file__).with_name("usage_report_reference.sql")
MARK = "-- query: "


class _TemplateLoader(yaml.SafeLoader):
    """CloudFormation's short forms (!Sub, !Ref, ...) read as plain values."""


def _any_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> object:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)  # type: ignore[arg-type]


_TemplateLoader.add_multi_constructor("!", _any_tag)


def main(template: str) -> None:
    document = yaml.load(Path(template).read_text(encoding="utf-8"), Loader=_TemplateLoader)
    code = document["Resources"]["AggregationLambda"]["Properties"]["Code"]["ZipFile"]
    lines = [
        f"-- The aggregation queries of awslabs/sagemaker-hyperpod-usage-report at {USAGE_REPORT_REF},",
        "-- cloudformation/usage-report.yaml (AggregationLambda), copied verbatim by",
        "-- tests/aws_models/copy_usage_report_queries.py. Apache-2.0, (c) Amazon.com, Inc. or its affiliates.",
    ]
    for name in QUERIES:
        found = re.search(rf'^\s*{name} = """(.*?)"""', code, re.S | re.M)
        if found is None:
            raise SystemExit(f"{template}: no {name} query in the aggregation function")
        lines += [f"{MARK}{name}", found[1]]
    REFERENCE.write_text("\n".join(lines), encoding="utf-8")
    print(f"copied {', '.join(QUERIES)} to {REFERENCE}")


def reference_queries() -> dict[str, str]:
    """The copied queries by name."""
    text = REFERENCE.read_text(encoding="utf-8")
    return {part.split("\n", 1)[0]: part.split("\n", 1)[1] for part in text.split(MARK)[1:]}


if __name__ == "__main__":
    main(sys.argv[1])
