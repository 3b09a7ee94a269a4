// Original file: proto/cri/api.proto


export interface Mount {
  'containerPath'?: (string);
  'hostPath'?: (string);
  'readonly'?: (boolean);
  'selinuxRelabel'?: (boolean);
}

export interface Mount__Output {
  'containerPath': (string);
  'hostPath': (string);
  'readonly': (boolean);
  'selinuxRelabel': (boolean);
}
