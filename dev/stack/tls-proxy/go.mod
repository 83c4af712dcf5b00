module github.com/hms-iceberg-migrator/dev/stack/tls-proxy

go 1.25
