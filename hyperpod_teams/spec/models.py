"""The team spec, version 1, as a Pydantic model: `PlatformSpec`, the whole of the public contract
(its sections and fields are in the section modules `fields.py` gathers, and importable from here
too).

Pure layer: never imports cdktf. The rules that span several fields (`rules.py`) run from
`PlatformSpec`'s after-validator, so a spec built in Python is checked exactly like a file.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from hyperpod_teams.spec.fields import *  # noqa: F403 - the spec's models, importable from here as ever
from hyperpod_teams.spec.fields import (
    Backend,
    Cluster,
    Cost,
    Identity,
    LocalBackend,
    Organization,
    SpecModel,
    Team,
    installs,
)
from hyperpod_teams.spec.problems import SpecError
from hyperpod_teams.spec.rules import Sections, add_on_problems, problems_across_fields


class PlatformSpec(SpecModel):
    """One organization's shared HyperPod cluster and the teams that share it."""

    model_config = ConfigDict(title="hyperpod-teams spec v1")

    version: Literal[1]
    organization: Organization
    backend: Backend = Field(default_factory=LocalBackend)
    identity: Identity
    cluster: Cluster
    # A cost category takes at most 500 rules (Billing and Cost Management API reference,
    # CostCategoryRule list: 1 to 500), one per team and one for the shared platform (cost.py).
    teams: list[Team] = Field(min_length=1, max_length=499)
    cost: Cost = Field(default_factory=Cost, description="(optional addition) How the shared spend is split.")

    #: With several clusters, what the names that AWS holds once per account or region are qualified
    #: with on this view's cluster (spec.clusters.cluster_qualifier; set by validate_several_clusters);
    #: None for a one-cluster spec and for the cluster that keeps its names.
    _cluster_qualifier: str | None = PrivateAttr(default=None)
    #: With several clusters, the organization's Region, where its Identity Center instance is
    #: (set by validate_several_clusters on a view of a cluster in another Region).
    _identity_center_region: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _rules_across_fields(self) -> PlatformSpec:
        problems = problems_across_fields(
            Sections.of_parts(self.organization, self.identity, self.cluster, self.teams, self.cost)
        ) + add_on_problems(self.organization, self.cluster, self.teams)
        if problems:
            raise SpecError(problems)
        return self

    @property
    def installs_pod_identity_agent(self) -> bool:
        """Whether `<org>-cluster` installs the EKS Pod Identity agent add-on, which the training
        operator's, the usage-report operator's and the teams' workload credentials come through. It has one owner
        whichever needs it, so switching the other on later moves nothing: a move between two
        stacks' states destroys the agent in one (every Pod Identity credential on the cluster
        stops until it is back) and fails to create it in the other (EKS: "already exists")."""
        reports = self.cost.usage_reports
        if reports.enabled and reports.install_pod_identity_agent:
            return True
        if self.cluster.installs_training_operator and self.cluster.training_operator.install_pod_identity_agent:
            return True
        # A team's workload identity comes through it too: on an EKS cluster the stacks create,
        # nothing else would install it. Either setting at false says the cluster has it already;
        # on an existing EKS cluster, the two settings above say whether the stacks install it.
        said_present = not (
            reports.install_pod_identity_agent and self.cluster.training_operator.install_pod_identity_agent
        )
        return (
            self.cluster.eks.creates_cluster
            and not said_present
            and (any(team.workload_identity.enabled for team in self.teams) or installs(self.cluster.observability))
        )

    @property
    def cluster_qualifier(self) -> str | None:
        """What this cluster's account- and region-wide names carry besides the organization's name
        (`<org>-<qualifier>-...`): None but in the view of a cluster of a spec with `clusters`."""
        return self._cluster_qualifier

    @property
    def identity_center_region(self) -> str:
        """The Region of the organization's IAM Identity Center instance, where its permission sets,
        assignments and applications' assignments are managed: the organization's Region (with several
        clusters, the spec's organization.region, whichever Region this view's cluster runs in)."""
        return self._identity_center_region or self.organization.region

    def team(self, name: str) -> Team:
        for team in self.teams:
            if team.name == name:
                return team
        raise KeyError(name)
