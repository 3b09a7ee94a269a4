// Original file: proto/containerd/content.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ListStatusesRequest as _containerd_services_content_v1_ListStatusesRequest, ListStatusesRequest__Output as _containerd_services_content_v1_ListStatusesRequest__Output } from '../../../../containerd/services/content/v1/ListStatusesRequest.ts';
import type { ListStatusesResponse as _containerd_services_content_v1_ListStatusesResponse, ListStatusesResponse__Output as _containerd_services_content_v1_ListStatusesResponse__Output } from '../../../../containerd/services/content/v1/ListStatusesResponse.ts';

export interface ContentClient extends grpc.Client {
  ListStatuses(argument: _containerd_services_content_v1_ListStatusesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_containerd_services_content_v1_ListStatusesResponse__Output>): grpc.ClientUnaryCall;
  ListStatuses(argument: _containerd_services_content_v1_ListStatusesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_containerd_services_content_v1_ListStatusesResponse__Output>): grpc.ClientUnaryCall;
  ListStatuses(argument: _containerd_services_content_v1_ListStatusesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_containerd_services_content_v1_ListStatusesResponse__Output>): grpc.ClientUnaryCall;
  ListStatuses(argument: _containerd_services_content_v1_ListStatusesRequest, callback: grpc.requestCallback<_containerd_services_content_v1_ListStatusesResponse__Output>): grpc.ClientUnaryCall;
  listStatuses(argument: _containerd_services_content_v1_ListStatusesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_containerd_services_content_v1_ListStatusesResponse__Output>): grpc.ClientUnaryCall;
  listStatuses(argument: _containerd_services_content_v1_ListStatusesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_containerd_services_content_v1_ListStatusesResponse__Output>): grpc.ClientUnaryCall;
  listStatuses(argument: _containerd_services_content_v1_ListStatusesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_containerd_services_content_v1_ListStatusesResponse__Output>): grpc.ClientUnaryCall;
  listStatuses(argument: _containerd_services_content_v1_ListStatusesRequest, callback: grpc.requestCallback<_containerd_services_content_v1_ListStatusesResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ContentHandlers extends grpc.UntypedServiceImplementation {
  ListStatuses: grpc.handleUnaryCall<_containerd_services_content_v1_ListStatusesRequest__Output, _containerd_services_content_v1_ListStatusesResponse>;
  
}

export interface ContentDefinition extends grpc.ServiceDefinition {
  ListStatuses: MethodDefinition<_containerd_services_content_v1_ListStatusesRequest, _containerd_services_content_v1_ListStatusesResponse, _containerd_services_content_v1_ListStatusesRequest__Output, _containerd_services_content_v1_ListStatusesResponse__Output>
}
