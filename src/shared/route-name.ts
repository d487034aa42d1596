// Route templates (`/students/{id}`) as Express and the logs write them.
// The logs name a request's route by its pattern (`/admin/api/v1/students/:id`)
// rather than its concrete path, whose segments can be a student's id, a
// device's or a phone number (docs/operating.md#logs).

/** `template` under `base` as Express writes a path: `{id}` becomes `:id`, and `/` is the base itself. */
export function expressPath(base: string, template: string): string {
  return template === '/' ? base : `${base}${template.replace(/\{(\w+)\}/g, ':$1')}`;
}

/** The paths `template` matches, `{id}` standing for any one segment, with or without a trailing slash. */
export function templatePattern(template: string): RegExp {
  const literal = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\/$/, '');
  return new RegExp(`^${literal.replace(/\{\w+\}/g, '[^/]+')}/?$`);
}

/**
 * The namer for routes given as templates under `base`: a path one of them
 * matches is named by its Express path (`/admin/api/v1/students/:id`); any
 * other path is `base/*`.
 */
export function routeNamer(base: string, templates: readonly string[]): (path: string) => string {
  const routes = [...new Set(templates)].map((template) => ({
    pattern: templatePattern(template),
    name: expressPath(base, template),
  }));
  const other = `${base}/*`;
  return (path) => {
    if (!path.startsWith(base)) return other;
    const within = path.slice(base.length);
    return routes.find((route) => route.pattern.test(within))?.name ?? other;
  };
}
