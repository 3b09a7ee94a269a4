// Original file: proto/cri/api.proto


export interface ImageSpec {
  'image'?: (string);
  'annotations'?: ({[key: string]: string});
}

export interface ImageSpec__Output {
  'image': (string);
  'annotations': ({[key: string]: string});
}
