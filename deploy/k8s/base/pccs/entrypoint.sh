#!/bin/sh
# Entry point of the PCCS container of docker-compose.yml and of deploy/k8s (image built from
# Intel's QuoteGeneration/pccs/container). Writes the settings that come from the environment into the
# PCCS configuration, then runs Intel's server in the foreground:
#   API_KEY    Intel PCS subscription key (required; https://api.portal.trustedservices.intel.com)
#   ADMINPASS  optional password of the PCCS administrative endpoints (stored as its SHA-512)
#   USERPASS   optional password for platform registration (stored as its SHA-512)
# The TLS key pair (ssl_key/private.pem, ssl_key/file.crt) comes from the pccs-tls volume.
set -eu
: "${API_KEY:?API_KEY must be set to an Intel PCS subscription key}"
cd /opt/intel/pccs
node -e '
const fs = require("fs");
const crypto = require("crypto");
const file = "config/default.json";
const cfg = JSON.parse(fs.readFileSync(file, "utf8"));
const sha512 = (s) => crypto.createHash("sha512").update(s).digest("hex");
cfg.hosts = "0.0.0.0";
cfg.ApiKey = process.env.API_KEY;
if (process.env.ADMINPASS) cfg.AdminTokenHash = sha512(process.env.ADMINPASS);
if (process.env.USERPASS) cfg.UserTokenHash = sha512(process.env.USERPASS);
fs.writeFileSync(file, JSON.stringify(cfg, null, 2));
'
exec node pccs_server.js
