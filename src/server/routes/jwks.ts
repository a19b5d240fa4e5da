/** GET /.well-known/jwks.json: the public key this verifier signs its EARs with (an empty set without one). */
import type { FastifyPluginAsync } from 'fastify';
import type { EarSigner } from '../../ear/signer.js';

const jwk = { type: 'object', additionalProperties: { type: 'string' }, description: 'A public JWK (kty, crv, x[, y], kid, alg, use)' } as const;

export const jwksRoute = (signer?: EarSigner): FastifyPluginAsync => async (app) => {
  const body = signer ? signer.jwks : { keys: [] };
  app.get('/.well-known/jwks.json', {
    schema: {
      summary: 'The public key of the EARs this verifier signs (POST /decodeReport?format=ear, docs/ear.md); no key when none is configured',
      response: { 200: { type: 'object', required: ['keys'], additionalProperties: false, properties: { keys: { type: 'array', items: jwk } } } },
    },
  }, async () => body);
};
