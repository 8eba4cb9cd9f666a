"""The `synth` command with jsii_requests foretelling one object number wrong, as a jsii that
numbers objects another way would: the command must still finish, the ordinary way.
Arguments: the command's own (synth SPEC --out DIR)."""

import sys

from hyperpod_teams import cli
from hyperpod_teams.speedups import jsii_requests

published_defer = jsii_requests._DeferredAnswers.defer
deferred = 0


def defer(self, node_process, request, response_type):
    global deferred
    deferred += 1
    if deferred == 50 and self.next_id is not None:
        self.next_id += 7
    return published_defer(self, node_process, request, response_type)


jsii_requests._DeferredAnswers.defer = defer  # type: ignore[method-assign]  # the fault this program injects
sys.argv = ["hyperpod-teams", *sys.argv[1:]]
cli.main()
