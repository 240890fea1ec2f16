// Package deploy holds kurz's deployment files, checked against the code
// by this package's test:
//
//   - docker/: the image (both binaries, static, non-root, distroless) and
//     a compose file with PostgreSQL, ClickHouse, a one-shot migrate, the
//     admin and the edge;
//   - k8s/: plain manifests (kustomize) for the edge, the admin and the
//     migrate Job;
//   - systemd/: units for the edge, the admin and the migrations;
//   - local/: the scripts behind make run, make test, make bench, make lint.
//
// The test (deploy_test.go) parses the first three and fails when a file
// sets a KURZ_* variable the code does not read, puts a credential in
// plain configuration, disagrees with the code on a port, a health path
// or a shutdown budget, or drops a sandboxing or security setting; and
// when README.md's configuration table and the code's variables
// (config.Variables) differ. See README.md in this directory for how to
// use each.
package deploy
