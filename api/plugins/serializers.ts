import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { compileOncePerSchema } from './schema-memo';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's response serializers (fast-json-stringify), compiled once per distinct schema instead
 * of once per route and status: every route documents the same dozen error envelopes, so the app
 * compiled ~3,000 serializers, 60% of building it (0.5 s of CPU each start: `npm start`, every API
 * restart, every test file's app). A serializer depends only on its schema and the factory's shared
 * schemas, so routes with the same schema text share one function. One cache per factory: Fastify
 * makes a factory per set of shared schemas.
 */
export function cachedSerializerFactory(): SerializerFactory {
  const compileFor = SerializerSelector();
  return (externalSchemas, serializerOpts) => compileOncePerSchema(compileFor(externalSchemas, serializerOpts), (route) => JSON.stringify(route.schema));
}
