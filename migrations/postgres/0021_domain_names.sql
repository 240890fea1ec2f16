-- Branded domain names are unique whatever their port. The edge matches a
-- Host header exactly first and then without its port
-- (edge/internal/linkcache/domains.go), so a domain stored as name:port
-- also answers for the bare name. Without this index a second user could
-- register the bare name (or another port of it) and take those visitors
-- from the first. The expression is link.HostName: hosts are stored lower
-- case, without a trailing dot, IPv6 literals in brackets.
CREATE UNIQUE INDEX domains_name_key ON domains ((regexp_replace(host, ':[0-9]+$', '')));
