// A request's route named by its pattern (`/admin/api/v1/students/:id`)
// rather than its concrete path, whose segments can be a student's id, a
// device's or a phone number: what the access line and the admin API's own
// lines write (docs/operating.md#logs).

/**
 * The namer for routes given as templates under `base` (`/students/{id}`;
 * `/` names the base itself): a path one of them matches is named by it with
 * `:id` for each `{id}`; any other path under the base is `base/*`.
 */
export function routeNamer(base: string, templates: readonly string[]): (path: string) => string {
  const patterns = [...new Set(templates)].map((template) => ({
    test: new RegExp(
      `^${escaped(template)
        .replace(/\\\{\w+\\\}/g, '[^/]+')
        .replace(/\/$/, '')}/?$`,
    ),
    name: `${base}${template === '/' ? '' : template.replace(/\{(\w+)\}/g, ':$1')}`,
  }));
  return (path) => {
    const within = path.startsWith(base) ? path.slice(base.length) : path;
    return patterns.find((pattern) => pattern.test.test(within))?.name ?? `${base}/*`;
  };
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
