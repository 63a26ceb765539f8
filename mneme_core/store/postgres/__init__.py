"""The PostgreSQL backend (`store.open_store` opens it for a `postgresql://` URL): `store` runs the
transactions, `connection` holds one connection, `dialect` turns SQLite's SQL into PostgreSQL's, `schema`
holds the tables. Importing this package needs no psycopg; opening a store does (the `postgres` extra)."""
