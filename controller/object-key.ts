/** The one key of an object across the controller: `<apiVersion>/<Kind>/<namespace>/<name>`. */
import type { ApiKind } from '../constructs/kit';

export const objectKey = (
  type: Pick<ApiKind, 'apiVersion' | 'kind'>,
  namespace: string | undefined,
  name: string,
): string => `${type.apiVersion}/${type.kind}/${namespace ?? ''}/${name}`;
