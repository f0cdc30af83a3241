/**
 * A compiler that compiles each distinct schema once: routes share many schemas (every route
 * documents the same dozen error envelopes; parameters and queries repeat), and compiling each
 * again was most of building the app. `schemaText` names what the result depends on. Used for
 * Fastify's serializers (api/plugins/serializers.ts) and validators (api/plugins/validation.ts).
 */
export function compileOncePerSchema<A, F>(compile: (arg: A) => F, schemaText: (arg: A) => string): (arg: A) => F {
  const byText = new Map<string, F>();
  return (arg) => {
    const key = schemaText(arg);
    let fn = byText.get(key);
    if (!fn) {
      fn = compile(arg);
      byText.set(key, fn);
    }
    return fn;
  };
}
