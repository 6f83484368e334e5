from tests.harvesting.stub import campaign, no_servers_listed  # noqa: F401 (fixtures)
