import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { ContentClient as _containerd_services_content_v1_ContentClient, ContentDefinition as _containerd_services_content_v1_ContentDefinition } from './containerd/services/content/v1/Content.ts';
import type { ListStatusesRequest as _containerd_services_content_v1_ListStatusesRequest, ListStatusesRequest__Output as _containerd_services_content_v1_ListStatusesRequest__Output } from './containerd/services/content/v1/ListStatusesRequest.ts';
import type { ListStatusesResponse as _containerd_services_content_v1_ListStatusesResponse, ListStatusesResponse__Output as _containerd_services_content_v1_ListStatusesResponse__Output } from './containerd/services/content/v1/ListStatusesResponse.ts';
import type { Status as _containerd_services_content_v1_Status, Status__Output as _containerd_services_content_v1_Status__Output } from './containerd/services/content/v1/Status.ts';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  containerd: {
    services: {
      content: {
        v1: {
          Content: SubtypeConstructor<typeof grpc.Client, _containerd_services_content_v1_ContentClient> & { service: _containerd_services_content_v1_ContentDefinition }
          ListStatusesRequest: MessageTypeDefinition<_containerd_services_content_v1_ListStatusesRequest, _containerd_services_content_v1_ListStatusesRequest__Output>
          ListStatusesResponse: MessageTypeDefinition<_containerd_services_content_v1_ListStatusesResponse, _containerd_services_content_v1_ListStatusesResponse__Output>
          Status: MessageTypeDefinition<_containerd_services_content_v1_Status, _containerd_services_content_v1_Status__Output>
        }
      }
    }
  }
  google: {
    protobuf: {
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
}

