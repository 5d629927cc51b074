from pathlib import Path

import pytest

psycopg = pytest.importorskip("psycopg")

from tests.pg_server import PostgresServer, PostgresStartError  # noqa: E402


def test_two_databases_of_one_server_are_isolated(postgres_server, pg_url):
    other = postgres_server.create_database("isolation_other")
    try:
        with psycopg.connect(pg_url) as con:
            con.execute("CREATE TABLE only_here (x integer)")
            con.execute("INSERT INTO only_here VALUES (7)")
        with psycopg.connect(pg_url) as con:
            assert con.execute("SELECT x FROM only_here").fetchall() == [(7,)]
        with psycopg.connect(other) as con:
            found = con.execute("SELECT count(*) FROM pg_tables WHERE tablename = 'only_here'").fetchone()
            assert found == (0,)
            with pytest.raises(psycopg.errors.UndefinedTable):
                con.execute("SELECT x FROM only_here")
    finally:
        postgres_server.drop_database("isolation_other")
    assert pg_url.startswith(f"postgresql://postgres@127.0.0.1:{postgres_server.port}/t_")


def test_each_test_gets_its_own_empty_database(pg_url):
    with psycopg.connect(pg_url) as con:
        tables = con.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    assert tables == (0,)


def test_start_on_a_taken_port_names_the_port_and_shows_the_log(postgres_server):
    server = PostgresServer(port=postgres_server.port)
    with pytest.raises(PostgresStartError) as failed:
        server.start()
    message = str(failed.value)
    assert f"127.0.0.1:{postgres_server.port}" in message
    # The tail of the server log: PostgreSQL's own words about the address in use.
    assert "could not bind" in message or "already in use" in message, message
    assert server.root is None  # the failed cluster's folder is removed, its log kept beside it
    kept = message.split("Server log kept in ")[1].split(",")[0]
    assert "could not bind" in Path(kept).read_text(encoding="utf-8")
    with psycopg.connect(postgres_server.url()) as con:  # the running server is untouched
        assert con.execute("SELECT 1").fetchone() == (1,)


@pytest.mark.postgres  # starts a server of its own, so the conftest hook cannot see it
def test_stop_removes_the_cluster_folder():
    with PostgresServer() as server:
        root = server.root
        assert (root / "data" / "PG_VERSION").is_file()
        with psycopg.connect(server.url()) as con:
            assert con.execute("SHOW fsync").fetchone() == ("off",)
    assert not root.exists()


def test_missing_binaries_say_what_to_install(monkeypatch):
    import tests.pg_server as pg_server

    monkeypatch.setattr(pg_server.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(pg_server.shutil, "which", lambda name: None)
    with pytest.raises(pg_server.PostgresUnavailable, match="postgresql"):
        PostgresServer()
