import type { AdmissionHook } from '../api/context.ts';

/** Admission hooks run one after the other, each on the object the previous one returned. */
export function chainAdmission(...hooks: AdmissionHook[]): AdmissionHook {
  return async (req) => {
    let object = req.object;
    for (const hook of hooks) object = (await hook({ ...req, object })) ?? object;
    return object;
  };
}
